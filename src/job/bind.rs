//! Binding: the job's `[[resource]]`, `[[heap]]` and `[[sampler_heap]]` entries made into
//! resources (memory, textures, counters) and the descriptors that view them.
//!
//! Owns: checking every key of every entry (a kind or format name that does not exist, a
//! key that does not apply to the entry's kind, a register class that cannot hold the
//! kind, sizes that are missing or do not fit), each refused with an error naming the
//! entry and the key. Does not own: matching the entries with the registers a program
//! declares ([`super::reflect`]).
//!
//! # Rules
//!
//! - Registers: `t` holds SRVs (buffers and textures), `u` UAVs (buffers and textures
//!   other than cubes), `b` constant buffers, `s` samplers (D3D's register classes).
//!   `[[heap]]` entries say `descriptor = "srv" | "uav" | "cbv"` instead, with the same
//!   classes; `kind = "none"` leaves a slot empty (a null descriptor).
//! - Buffer sizes: `size` bytes; without it, the larger of the `data` and the view
//!   (`(first_element + num_elements) × element size`); elements are 4-byte words for raw
//!   views, `stride` bytes for structured ones, texels of `format` for typed ones. The
//!   view defaults to the whole buffer. A view past the buffer's end is refused.
//! - `counter` (structured UAVs only) gives the view a hidden counter starting at that
//!   value.
//! - Constant buffers: `size` or the data's length, at most 65536 bytes
//!   (D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT × 16).
//! - Textures: `width`; `height` except for 1D; `depth` for 3D (default 1);
//!   `array_size` for arrays (default 1; cube arrays count cubes, 6 faces each); `mips`
//!   (default 1); `samples` for multisampled kinds (default 1). Raw `data` holds every
//!   subresource tightly packed in D3D12 subresource order; image files fill
//!   subresources (`images`, or a `.png` `file` for mip 0 of slice 0), converted as
//!   `image_io` states. `view_format`, `view_mips` and `view_slices` describe the view
//!   (D3D12's SRV/UAV fields; default: the whole texture in its own format). UAVs
//!   (textures and typed buffers) take only the formats D3D12 gives typed unordered
//!   access (`Format::typed_uav`). Block-compressed textures are for SRVs.
//! - Samplers: `D3D12_SAMPLER_DESC` fields, each defaulting to Direct3D's default sampler
//!   state (`MIN_MAG_MIP_LINEAR`, `CLAMP`, bias 0, anisotropy 1, `NEVER`, border
//!   (1, 1, 1, 1), LOD range unlimited). `address` takes one mode for all three axes or
//!   three.
//! - `null = true`: a null descriptor of the kind; only `kind`, the view's `format` and
//!   `stride` (and `reg`, `space`, `descriptor`) may go with it. It reads 0 in every
//!   component, drops writes and has dimensions 0 (D3D12 null descriptors).

use std::fmt;
use std::path::{Path, PathBuf};

use super::limits::MemoryBudget as Budget;
use super::schema::{DataSpec, JobFile, ResourceEntry, SamplerEntry};
use super::{JobError, closest, data, png};
use crate::ir::{ResourceClass, Stage};
use crate::resources::format::ChannelType;
use crate::resources::{
    AddressMode, BufferKind, BufferView, ComparisonFunc, Counter, Descriptor, FeedbackKind,
    FeedbackMap, Filter, Format, Memory, Reduction, SamplerDesc, Texture, TextureDesc, TextureDim,
    TextureView, ViewClass,
};

/// The most bytes of one constant buffer (D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT × 16).
pub const MAX_CBUFFER_BYTES: u64 = 65536;

/// The largest structured-buffer stride (D3D12_REQ_MULTI_ELEMENT_STRUCTURE_SIZE_IN_BYTES).
pub const MAX_STRIDE: u32 = 2048;

/// The most bytes all of a job's resources may take together, unless `[options]
/// max_memory` says otherwise (checked before allocating).
pub const DEFAULT_MAX_RESOURCE_BYTES: u64 = 4 << 30;

/// Which list of the job an entry is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    /// `[[resource]]`.
    Resource,
    /// `[[heap]]` (`ResourceDescriptorHeap`).
    Heap,
    /// `[[sampler_heap]]` (`SamplerDescriptorHeap`).
    SamplerHeap,
}

/// One entry of the job: its list and its 0-based position there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryRef {
    /// The list.
    pub table: Table,
    /// 0-based position (printed 1-based).
    pub index: usize,
}

/// A register binding: `u3`, `t0, space2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Register {
    /// The class (letter).
    pub class: ResourceClass,
    /// The register number.
    pub index: u32,
    /// The register space.
    pub space: u32,
}

impl fmt::Display for Register {
    /// As `ir::ResourceRange::binding_name` spells one register: `u3`, `t0, space2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.letter(), self.index)?;
        if self.space != 0 {
            write!(f, ", space{}", self.space)?;
        }
        Ok(())
    }
}

impl Register {
    /// Parses `u3` (any letter case) in `space`.
    pub fn parse(text: &str, space: u32) -> Option<Register> {
        let t = text.trim();
        let mut chars = t.chars();
        let class = match chars.next()?.to_ascii_lowercase() {
            't' => ResourceClass::Srv,
            'u' => ResourceClass::Uav,
            'b' => ResourceClass::Cbv,
            's' => ResourceClass::Sampler,
            _ => return None,
        };
        let digits = chars.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Register {
            class,
            index: digits.parse().ok()?,
            space,
        })
    }
}

/// What an entry binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// `raw_buffer`.
    RawBuffer,
    /// `structured_buffer`.
    StructuredBuffer {
        /// Stride in bytes.
        stride: u32,
    },
    /// `typed_buffer`.
    TypedBuffer {
        /// Element format.
        format: Format,
    },
    /// `cbuffer`.
    ConstantBuffer,
    /// `texture1d` … `texturecubearray`.
    Texture {
        /// Shape.
        dim: TextureDim,
        /// Texel format.
        format: Format,
    },
    /// `sampler`.
    Sampler {
        /// Whether its filter is a comparison filter.
        comparison: bool,
    },
    /// `none`: an empty heap slot.
    None,
    /// `acceleration_structure`: a top-level `[[acceleration_structure]]`, viewed by an
    /// SRV (`D3D12_SRV_DIMENSION_RAYTRACING_ACCELERATION_STRUCTURE`).
    AccelerationStructure,
    /// `feedback_texture2d`, `feedback_texture2darray`: a sampler feedback map, viewed by
    /// a UAV (`CreateSamplerFeedbackUnorderedAccessView`).
    Feedback {
        /// Whether it pairs with a 2D array.
        array: bool,
        /// What it records.
        kind: FeedbackKind,
    },
}

/// Every `kind` name, in the order the job file documents them.
pub const KIND_NAMES: &[&str] = &[
    "raw_buffer",
    "structured_buffer",
    "typed_buffer",
    "cbuffer",
    "texture1d",
    "texture1darray",
    "texture2d",
    "texture2darray",
    "texture2dms",
    "texture2dmsarray",
    "texture3d",
    "texturecube",
    "texturecubearray",
    "sampler",
    "acceleration_structure",
    "feedback_texture2d",
    "feedback_texture2darray",
    "none",
];

impl EntryKind {
    /// The job file's name of the kind.
    pub fn name(&self) -> &'static str {
        match self {
            EntryKind::RawBuffer => "raw_buffer",
            EntryKind::StructuredBuffer { .. } => "structured_buffer",
            EntryKind::TypedBuffer { .. } => "typed_buffer",
            EntryKind::ConstantBuffer => "cbuffer",
            EntryKind::Texture { dim, .. } => dim.name(),
            EntryKind::Sampler { .. } => "sampler",
            EntryKind::None => "none",
            EntryKind::AccelerationStructure => "acceleration_structure",
            EntryKind::Feedback { array: false, .. } => "feedback_texture2d",
            EntryKind::Feedback { array: true, .. } => "feedback_texture2darray",
        }
    }

    /// The kind with its stride or format, as listings show it: `structured_buffer
    /// (stride 16)`, `texture2d R8G8B8A8_UNORM`.
    pub fn describe(&self) -> String {
        match self {
            EntryKind::StructuredBuffer { stride } => {
                format!("structured_buffer (stride {stride})")
            }
            EntryKind::TypedBuffer { format } => format!("typed_buffer {format}"),
            EntryKind::Texture { dim, format } => format!("{} {format}", dim.name()),
            EntryKind::Sampler { comparison: true } => "sampler (comparison)".into(),
            EntryKind::Feedback { kind, .. } => format!("{} {}", self.name(), kind.name()),
            k => k.name().into(),
        }
    }

    /// The descriptor class the kind is viewed through.
    pub fn view_class(&self) -> ViewClass {
        match self {
            EntryKind::RawBuffer
            | EntryKind::StructuredBuffer { .. }
            | EntryKind::TypedBuffer { .. }
            | EntryKind::None => ViewClass::Buffer,
            EntryKind::ConstantBuffer => ViewClass::ConstantBuffer,
            EntryKind::Texture { .. } => ViewClass::Texture,
            EntryKind::Sampler { .. } => ViewClass::Sampler,
            EntryKind::AccelerationStructure => ViewClass::AccelerationStructure,
            EntryKind::Feedback { .. } => ViewClass::Feedback,
        }
    }

    /// Whether a register (or heap descriptor) of `class` can hold this kind.
    pub fn fits_class(&self, class: ResourceClass) -> bool {
        match self {
            EntryKind::RawBuffer
            | EntryKind::StructuredBuffer { .. }
            | EntryKind::TypedBuffer { .. } => {
                matches!(class, ResourceClass::Srv | ResourceClass::Uav)
            }
            EntryKind::Texture { dim, .. } => {
                class == ResourceClass::Srv || (class == ResourceClass::Uav && !dim.is_cube())
            }
            EntryKind::ConstantBuffer => class == ResourceClass::Cbv,
            EntryKind::Sampler { .. } => class == ResourceClass::Sampler,
            EntryKind::None => true,
            // DXR: an acceleration structure is read through an SRV only.
            EntryKind::AccelerationStructure => class == ResourceClass::Srv,
            // "They bind to a u# HLSL register" (a feedback map's UAV).
            EntryKind::Feedback { .. } => class == ResourceClass::Uav,
        }
    }
}

/// The storage behind an entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// Nothing (samplers, null descriptors, empty heap slots).
    None,
    /// A buffer's memory (also constant buffers).
    Buffer(Memory),
    /// A texture.
    Texture(Texture),
}

/// One entry made into a resource and a descriptor.
#[derive(Debug, Clone)]
pub struct BoundEntry {
    /// Where the entry is in the job.
    pub at: EntryRef,
    /// The programs that see it (a root parameter's `ShaderVisibility`).
    pub visibility: Visibility,
    /// The entry's name in messages: `[[resource]] #1 (u0)`.
    pub name: String,
    /// The register (`[[resource]]` entries).
    pub reg: Option<Register>,
    /// What it binds.
    pub kind: EntryKind,
    /// Whether it is a null descriptor (`null = true` or `kind = "none"`).
    pub null: bool,
    /// The descriptor.
    pub descriptor: Descriptor,
    /// The storage it views.
    pub storage: Storage,
    /// The UAV counter, when it has one.
    pub counter: Option<Counter>,
    /// Where to write the final contents (resolved against the job's folder).
    pub output: Option<PathBuf>,
    /// Where to write the final counter.
    pub counter_output: Option<PathBuf>,
    /// Single subresources to write (textures' `outputs`).
    pub subresource_outputs: Vec<SubresourceTarget>,
}

/// One subresource of a texture to write after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubresourceTarget {
    /// The file (resolved against the job's folder); `.png` or `.bin`.
    pub path: PathBuf,
    /// The mip.
    pub mip: u32,
    /// The array slice (cube face, 3D plane).
    pub slice: u32,
}

impl BoundEntry {
    /// The storage's current bytes (all of a buffer; all subresources of a texture).
    pub fn contents(&self) -> Option<Vec<u8>> {
        match &self.storage {
            Storage::None => None,
            Storage::Buffer(m) => Some(m.to_bytes()),
            Storage::Texture(t) => Some(t.to_bytes()),
        }
    }

    /// The storage's memory (all of a buffer; all subresources of a texture).
    pub fn memory(&self) -> Option<&crate::resources::Memory> {
        match &self.storage {
            Storage::None => None,
            Storage::Buffer(m) => Some(m),
            Storage::Texture(t) => Some(t.memory()),
        }
    }

    /// Bytes of storage.
    pub fn storage_bytes(&self) -> u64 {
        match &self.storage {
            Storage::None => 0,
            Storage::Buffer(m) => m.len(),
            Storage::Texture(t) => t.memory().len(),
        }
    }

    /// The texture, for texture entries.
    pub fn texture(&self) -> Option<&Texture> {
        match &self.storage {
            Storage::Texture(t) => Some(t),
            _ => None,
        }
    }
}

/// Every entry of a job, bound.
#[derive(Debug, Clone, Default)]
pub struct BoundJob {
    /// `[[resource]]` entries, in file order.
    pub resources: Vec<BoundEntry>,
    /// `[[heap]]` entries: slot `i` of `ResourceDescriptorHeap`.
    pub heap: Vec<BoundEntry>,
    /// `[[sampler_heap]]` entries: slot `i` of `SamplerDescriptorHeap`.
    pub sampler_heap: Vec<BoundEntry>,
}

impl BoundJob {
    /// The `[[resource]]` entry bound at `reg` (the first, when entries of different
    /// visibilities share the register; [`BoundJob::register_index`] refuses that).
    pub fn at_register(&self, reg: Register) -> Option<&BoundEntry> {
        self.resources.iter().find(|e| e.reg == Some(reg))
    }

    /// The index of the one `[[resource]]` entry at `reg`, for what names an entry by
    /// its register alone (`[[expect]]`, the debugger's views): an error saying so when
    /// none is, or when several are, each seen by other programs.
    pub fn register_index(&self, reg: Register) -> Result<usize, String> {
        let mut at = self
            .resources
            .iter()
            .enumerate()
            .filter(|(_, e)| e.reg == Some(reg));
        match (at.next(), at.next()) {
            (None, _) => Err(format!("the job binds nothing at {reg}")),
            (Some((i, _)), None) => Ok(i),
            (Some((_, a)), Some((_, b))) => Err(format!(
                "{reg} is bound per stage, by {} (visibility {}) and {} (visibility {}): a register names one resource only where one entry binds it; give the entry an `output` instead",
                a.name,
                a.visibility.name(),
                b.name,
                b.visibility.name()
            )),
        }
    }

    /// Every entry, in the order resources, heap, sampler heap.
    pub fn all(&self) -> impl Iterator<Item = &BoundEntry> {
        self.resources
            .iter()
            .chain(&self.heap)
            .chain(&self.sampler_heap)
    }
}

/// `D3D12_SHADER_VISIBILITY`: which programs of a draw see a binding, as a root
/// signature parameter's `ShaderVisibility` says. `All` (the default, and what a binding
/// without the key has always meant) is every stage, compute and ray tracing included;
/// each other value is the one graphics stage it names, so one register may name a
/// different resource in the vertex and the pixel program. A compute or ray-tracing
/// program sees only `All` bindings (D3D12 reads only `D3D12_SHADER_VISIBILITY_ALL` for
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Visibility {
    /// `D3D12_SHADER_VISIBILITY_ALL`.
    #[default]
    All,
    /// `_VERTEX`.
    Vertex,
    /// `_HULL`.
    Hull,
    /// `_DOMAIN`.
    Domain,
    /// `_GEOMETRY`.
    Geometry,
    /// `_PIXEL`.
    Pixel,
    /// `_AMPLIFICATION`.
    Amplification,
    /// `_MESH`.
    Mesh,
}

impl Visibility {
    /// Every value with its job-file name (the `D3D12_SHADER_VISIBILITY_` suffix in
    /// lower case).
    pub const NAMES: &'static [(&'static str, Visibility)] = &[
        ("all", Visibility::All),
        ("vertex", Visibility::Vertex),
        ("hull", Visibility::Hull),
        ("domain", Visibility::Domain),
        ("geometry", Visibility::Geometry),
        ("pixel", Visibility::Pixel),
        ("amplification", Visibility::Amplification),
        ("mesh", Visibility::Mesh),
    ];

    /// The value named `name` (any case; the `D3D12_SHADER_VISIBILITY_` prefix allowed).
    pub fn parse(name: &str) -> Result<Visibility, String> {
        let n = name.trim().to_ascii_lowercase();
        let n = n.strip_prefix("d3d12_shader_visibility_").unwrap_or(&n);
        Self::NAMES
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                format!(
                    "unknown visibility \"{name}\"; one of {}",
                    Self::NAMES
                        .iter()
                        .map(|(k, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }

    /// The job-file name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("?", |(k, _)| k)
    }

    /// Whether a program of `stage` sees the binding.
    pub fn sees(self, stage: Stage) -> bool {
        match self {
            Visibility::All => true,
            Visibility::Vertex => stage == Stage::Vertex,
            Visibility::Hull => stage == Stage::Hull,
            Visibility::Domain => stage == Stage::Domain,
            Visibility::Geometry => stage == Stage::Geometry,
            Visibility::Pixel => stage == Stage::Pixel,
            Visibility::Amplification => stage == Stage::Amplification,
            Visibility::Mesh => stage == Stage::Mesh,
        }
    }

    /// Whether some program would see both bindings (two of them at one register then
    /// name it twice).
    pub fn overlaps(self, other: Visibility) -> bool {
        self == Visibility::All || other == Visibility::All || self == other
    }

    /// The words a duplicate-register error adds when visibilities are in play.
    pub(crate) fn clash(a: Visibility, b: Visibility) -> String {
        if a == Visibility::All && b == Visibility::All {
            String::new()
        } else {
            format!(
                " (visibilities {} and {} overlap: give each binding of a register its own stage)",
                a.name(),
                b.name()
            )
        }
    }
}

/// The name of a `[[resource]]` entry as messages show it: `[[resource]] #2 (u0)`, with
/// the register as the file spells it.
pub fn resource_entry_name(index: usize, e: &ResourceEntry) -> String {
    match (&e.reg, e.space) {
        (Some(r), Some(s)) if s != 0 => format!("[[resource]] #{} ({r}, space{s})", index + 1),
        (Some(r), _) => format!("[[resource]] #{} ({r})", index + 1),
        (None, _) => match &e.name {
            Some(n) => format!("[[resource]] #{} (\"{n}\")", index + 1),
            None => format!("[[resource]] #{}", index + 1),
        },
    }
}

/// The name of heap slot `index` as messages show it.
pub fn heap_entry_name(table: Table, index: usize) -> String {
    match table {
        Table::SamplerHeap => {
            format!(
                "[[sampler_heap]] #{} (SamplerDescriptorHeap[{index}])",
                index + 1
            )
        }
        _ => format!("[[heap]] #{} (ResourceDescriptorHeap[{index}])", index + 1),
    }
}

/// Binds every entry of `job` (paths relative to `dir`). `memory_limit` caps the bytes
/// of all resources together.
pub fn bind_job(job: &JobFile, dir: &Path, memory_limit: u64) -> Result<BoundJob, JobError> {
    let mut out = BoundJob::default();
    let mut budget = Budget::new(memory_limit);
    // Feedback maps are bound after the textures they pair with, wherever those are
    // in the file; acceleration structures are built after the buffers a geometry may
    // read, and the views of them bound last. The entries keep their file order.
    let pass_of = |e: &ResourceEntry| match parse_kind_name(&e.kind) {
        Ok((k, _)) if k.starts_with("feedback_") => 1,
        Ok(("acceleration_structure", _)) => 2,
        _ => 0,
    };
    let mut bound: Vec<Option<BoundEntry>> = job.resources.iter().map(|_| None).collect();
    let no_paired = |_: &str, _: u32| -> Result<TextureDesc, String> {
        Err("only feedback maps have a paired texture".into())
    };
    let mut accel = super::accel::Built::default();
    for pass in 0..3 {
        if pass == 2 {
            // A geometry's named buffer: a `[[resource]]` buffer by `name`.
            let buffers = |key: &str, n: &str| -> Result<crate::resources::Memory, String> {
                let i = job
                    .resources
                    .iter()
                    .position(|r| r.name.as_deref() == Some(n))
                    .ok_or_else(|| {
                        super::list::no_resource_named(
                            key,
                            n,
                            job.resources
                                .iter()
                                .filter_map(|r| r.name.as_deref())
                                .collect(),
                        )
                    })?;
                match bound.get(i).and_then(Option::as_ref).map(|b| &b.storage) {
                    Some(Storage::Buffer(m)) => Ok(m.clone()),
                    _ => Err(format!("`{key}`: \"{n}\" is not a buffer")),
                }
            };
            accel = super::accel::build(job, dir, &mut budget, &buffers)?;
        }
        for (i, e) in job.resources.iter().enumerate() {
            if pass_of(e) != pass {
                continue;
            }
            let name = resource_entry_name(i, e);
            let at = EntryRef {
                table: Table::Resource,
                index: i,
            };
            let find = |p: &str, space: u32| {
                paired_texture(&job.resources, bound.iter().flatten(), p, space)
            };
            let b = if pass == 1 {
                bind_entry(e, at, &name, dir, &mut budget, &accel, &find)?
            } else {
                bind_entry(e, at, &name, dir, &mut budget, &accel, &no_paired)?
            };
            if let Some(slot) = bound.get_mut(i) {
                *slot = Some(b);
            }
        }
    }
    for (i, b) in bound.into_iter().enumerate() {
        let Some(b) = b else { continue };
        let name = &b.name;
        if let Some(prev) = out
            .resources
            .iter()
            .find(|p| b.reg.is_some() && p.reg == b.reg && p.visibility.overlaps(b.visibility))
        {
            return Err(JobError::entry(
                name,
                format!(
                    "`reg`: {} is already bound by {}{}",
                    b.reg.map(|r| r.to_string()).unwrap_or_default(),
                    prev.name,
                    Visibility::clash(prev.visibility, b.visibility)
                ),
            ));
        }
        debug_assert_eq!(b.at.index, i);
        out.resources.push(b);
    }
    // A feedback map in a heap slot pairs with a `[[resource]]` texture (by register or
    // name): CreateSamplerFeedbackUnorderedAccessView names the paired resource, not a
    // descriptor, and the job's resources are its resources.
    let heap_paired = |p: &str, space: u32| -> Result<TextureDesc, String> {
        paired_texture(&job.resources, out.resources.iter(), p, space)
    };
    for (i, e) in job.heap.iter().enumerate() {
        let name = heap_entry_name(Table::Heap, i);
        let at = EntryRef {
            table: Table::Heap,
            index: i,
        };
        out.heap.push(bind_entry(
            e,
            at,
            &name,
            dir,
            &mut budget,
            &accel,
            &heap_paired,
        )?);
    }
    for (i, s) in job.sampler_heap.iter().enumerate() {
        let name = heap_entry_name(Table::SamplerHeap, i);
        let at = EntryRef {
            table: Table::SamplerHeap,
            index: i,
        };
        out.sampler_heap
            .push(bind_sampler_heap_entry(s, at, &name)?);
    }
    // Shader records hold resources' addresses, so they are written once all are bound.
    super::shader_table::write_records(job, &out)?;
    Ok(out)
}

/// Bytes allocated so far against the job's limit.
/// The keys of a `[[resource]]`/`[[heap]]` entry that are set, besides `reg`, `space`,
/// `descriptor`, `kind` and `null`.
fn present_keys(e: &ResourceEntry) -> Vec<&'static str> {
    let mut k = Vec::new();
    macro_rules! has {
        ($($f:ident),*) => { $( if e.$f.is_some() { k.push(stringify!($f)); } )* };
    }
    has!(
        stride,
        format,
        size,
        first_element,
        num_elements,
        counter,
        data,
        output,
        counter_output,
        width,
        height,
        depth,
        array_size,
        mips,
        samples,
        filter,
        address,
        mip_lod_bias,
        max_anisotropy,
        comparison,
        border_color,
        min_lod,
        max_lod,
        outputs,
        view_format,
        view_mips,
        view_slices,
        acceleration_structure,
        paired,
        feedback,
        mip_region
    );
    k
}

const BUFFER_KEYS: &[&str] = &["size", "first_element", "num_elements", "data", "output"];
const SAMPLER_KEYS: &[&str] = &[
    "filter",
    "address",
    "mip_lod_bias",
    "max_anisotropy",
    "comparison",
    "border_color",
    "min_lod",
    "max_lod",
];

/// Whether `key` applies to an entry of kind `kind` (named by the job file).
fn key_applies(kind: &str, dim: Option<TextureDim>, key: &str) -> bool {
    match kind {
        "raw_buffer" => BUFFER_KEYS.contains(&key),
        "structured_buffer" => {
            BUFFER_KEYS.contains(&key) || matches!(key, "stride" | "counter" | "counter_output")
        }
        "typed_buffer" => BUFFER_KEYS.contains(&key) || key == "format",
        "cbuffer" => matches!(key, "size" | "data" | "output"),
        "sampler" => SAMPLER_KEYS.contains(&key),
        "acceleration_structure" => key == "acceleration_structure",
        "feedback_texture2d" | "feedback_texture2darray" => {
            matches!(
                key,
                "paired"
                    | "feedback"
                    | "mip_region"
                    | "width"
                    | "height"
                    | "mips"
                    | "output"
                    | "outputs"
            ) || (key == "array_size" && kind_name_is_array(kind))
        }
        "none" => false,
        _ => {
            let Some(dim) = dim else { return false };
            match key {
                "format" | "width" | "mips" | "data" | "output" | "outputs" | "view_format"
                | "view_mips" => true,
                "view_slices" => dim.is_array() || dim.is_cube() || dim == TextureDim::Tex2D,
                "height" => !matches!(dim, TextureDim::Tex1D | TextureDim::Tex1DArray),
                "depth" => dim == TextureDim::Tex3D,
                "array_size" => dim.is_array(),
                "samples" => dim.is_multisampled(),
                _ => false,
            }
        }
    }
}

fn kind_name_is_array(kind: &str) -> bool {
    kind.ends_with("array")
}

/// The kind named `name`, or an error listing the known ones.
fn parse_kind_name(name: &str) -> Result<(&'static str, Option<TextureDim>), String> {
    let n = name.trim().to_ascii_lowercase();
    match KIND_NAMES.iter().find(|k| **k == n) {
        Some(k) => Ok((k, TextureDim::from_name(k))),
        None => {
            let hint = closest(&n, KIND_NAMES.iter().copied())
                .map(|k| format!("did you mean \"{k}\"? "))
                .unwrap_or_default();
            Err(format!(
                "unknown kind \"{name}\" ({hint}known kinds: {})",
                KIND_NAMES.join(", ")
            ))
        }
    }
}

/// The format named `name` for a texture: any format a texture can hold (typeless and
/// block-compressed ones included; the view's format is checked when the view is made).
fn parse_texture_format(name: &str) -> Result<Format, String> {
    let Some(f) = Format::from_name(name) else {
        return parse_format(name);
    };
    if f.is_texture_readable() || (f.is_block_compressed() && f.block_family().is_some()) {
        return Ok(f);
    }
    parse_format(name)
}

/// The format named `name`, refusing typeless formats (a view needs a type).
fn parse_format(name: &str) -> Result<Format, String> {
    let Some(f) = Format::from_name(name) else {
        let hint = closest(name, Format::ALL.iter().map(|f| f.name()))
            .map(|k| format!(" (did you mean {k}?)"))
            .unwrap_or_default();
        return Err(format!("unknown format \"{name}\"{hint}"));
    };
    if f.channel_type() == ChannelType::Typeless {
        return Err(format!(
            "`format`: {f} is typeless; a view needs a typed format"
        ));
    }
    if !f.is_supported() {
        return Err(format!(
            "`format`: {f} cannot be read or written yet (block-compressed and subsampled formats are not supported)"
        ));
    }
    Ok(f)
}

/// The register class a `[[heap]]` entry's `descriptor` names.
fn parse_descriptor(d: &str) -> Result<ResourceClass, String> {
    match d.trim().to_ascii_lowercase().as_str() {
        "srv" => Ok(ResourceClass::Srv),
        "uav" => Ok(ResourceClass::Uav),
        "cbv" => Ok(ResourceClass::Cbv),
        "sampler" => Err(
            "`descriptor`: samplers go in [[sampler_heap]] entries (SamplerDescriptorHeap)".into(),
        ),
        _ => Err(format!(
            "unknown descriptor \"{d}\" (known: \"srv\", \"uav\", \"cbv\")"
        )),
    }
}

fn class_word(c: ResourceClass) -> &'static str {
    match c {
        ResourceClass::Srv => "an SRV",
        ResourceClass::Uav => "a UAV",
        ResourceClass::Cbv => "a constant buffer",
        ResourceClass::Sampler => "a sampler",
    }
}

/// The description of the texture a feedback map's `paired` names among the bound
/// `[[resource]]` entries: a register (in `space`) or an entry's `name`.
fn paired_texture<'b>(
    entries: &[ResourceEntry],
    bound: impl IntoIterator<Item = &'b BoundEntry>,
    p: &str,
    space: u32,
) -> Result<TextureDesc, String> {
    let reg = Register::parse(p, space);
    let entry = bound.into_iter().find(|b| match reg {
        Some(_) => b.reg == reg,
        None => entries
            .get(b.at.index)
            .is_some_and(|e| e.name.as_deref() == Some(p)),
    });
    let Some(entry) = entry else {
        return Err("no texture [[resource]] has this register or name".into());
    };
    match entry.texture() {
        Some(t) if !entry.null && !matches!(entry.kind, EntryKind::Feedback { .. }) => {
            Ok(*t.desc())
        }
        _ => Err(format!(
            "{} is a {}, not a texture",
            entry.name,
            entry.kind.name()
        )),
    }
}

/// Binds one `[[resource]]` or `[[heap]]` entry.
fn bind_entry(
    e: &ResourceEntry,
    at: EntryRef,
    name: &str,
    dir: &Path,
    budget: &mut Budget,
    accel: &super::accel::Built,
    paired: &dyn Fn(&str, u32) -> Result<TextureDesc, String>,
) -> Result<BoundEntry, JobError> {
    let err = |m: String| JobError::entry(name, m);
    // Where the entry sits: a register or a heap slot.
    let (class, reg) = match at.table {
        Table::Resource => {
            if e.descriptor.is_some() {
                return Err(err(
                    "`descriptor` belongs to [[heap]] entries; a [[resource]] says `reg`".into(),
                ));
            }
            match &e.reg {
                Some(r) => {
                    let reg = Register::parse(r, e.space.unwrap_or(0)).ok_or_else(|| {
                        err(format!(
                            "`reg` \"{r}\" is not a register (t, u, b or s and a number: \"u0\")"
                        ))
                    })?;
                    (Some(reg.class), Some(reg))
                }
                // A command list's named resource: the commands that use it bind it.
                None if e.name.is_some() => {
                    if e.space.is_some() {
                        return Err(err(
                            "`space` goes with `reg`; a named resource is bound by the commands that use it".into(),
                        ));
                    }
                    (None, None)
                }
                None => {
                    return Err(err(
                        "missing `reg` (the register: \"t0\", \"u1\", \"b0\", \"s0\")".into(),
                    ));
                }
            }
        }
        _ => {
            if e.name.is_some() {
                return Err(err(
                    "`name` belongs to [[resource]] entries (a command list's named resources)"
                        .into(),
                ));
            }
            if e.reg.is_some() || e.space.is_some() {
                let key = if e.reg.is_some() { "reg" } else { "space" };
                return Err(err(format!(
                    "`{key}` does not apply to a [[heap]] entry: its slot is its position in the list"
                )));
            }
            match &e.descriptor {
                Some(d) => (Some(parse_descriptor(d).map_err(&err)?), None),
                None => (None, None),
            }
        }
    };
    let (kind_name, dim) = parse_kind_name(&e.kind).map_err(&err)?;
    if kind_name == "none" {
        if at.table == Table::Resource {
            return Err(err(
                "kind \"none\" is for empty [[heap]] slots; leave the register out or use `null = true`".into(),
            ));
        }
    } else if at.table == Table::Heap && class.is_none() {
        return Err(err(
            "missing `descriptor` (\"srv\", \"uav\" or \"cbv\")".into()
        ));
    }
    if kind_name == "sampler" && at.table == Table::Heap {
        return Err(err(
            "samplers go in [[sampler_heap]] entries (SamplerDescriptorHeap)".into(),
        ));
    }
    for key in present_keys(e) {
        if !key_applies(kind_name, dim, key) {
            return Err(err(format!(
                "`{key}` does not apply to a {kind_name}{}",
                applies_hint(key)
            )));
        }
    }
    // A null descriptor still has its view's kind and format (D3D12 creates null SRVs
    // and UAVs with a view dimension and a format): those keys may stay.
    let view_keys = ["format", "stride"];
    if (e.null || kind_name == "none")
        && let Some(key) = present_keys(e)
            .into_iter()
            .find(|k| kind_name == "none" || !view_keys.contains(k))
    {
        return Err(err(format!(
            "`{key}` does not apply to a null descriptor (it has no storage)"
        )));
    }
    let kind = parse_kind(e, kind_name, dim).map_err(&err)?;
    if let Some(c) = class
        && !kind.fits_class(c)
    {
        let how = match (at.table, reg) {
            (Table::Resource, Some(r)) => format!(
                "`reg` {r} holds {}; a {} needs {}",
                class_word(c),
                kind.name(),
                needed_register(&kind)
            ),
            _ => format!(
                "`descriptor` \"{}\" cannot hold a {} (it needs {})",
                descriptor_name(c),
                kind.name(),
                needed_descriptor(&kind)
            ),
        };
        return Err(err(how));
    }
    let named = at.table == Table::Resource && reg.is_none();
    if e.counter.is_some() && class != Some(ResourceClass::Uav) && !named {
        return Err(err(
            "`counter` needs a UAV (a `u` register, or descriptor = \"uav\")".into(),
        ));
    }
    if e.counter_output.is_some() && e.counter.is_none() {
        return Err(err(
            "`counter_output` needs `counter` (the counter's initial value)".into(),
        ));
    }
    let output = e.output.as_ref().map(|p| super::resolve(dir, p));
    let counter_output = e.counter_output.as_ref().map(|p| super::resolve(dir, p));
    let visibility = match &e.visibility {
        None => Visibility::All,
        Some(_) if reg.is_none() => {
            return Err(err(
                "`visibility` goes with `reg` (a root parameter's ShaderVisibility); a command list's named resource takes it in each command's `bind`, and a [[heap]] slot is seen by every program".into(),
            ));
        }
        Some(v) => Visibility::parse(v).map_err(|m| err(format!("`visibility`: {m}")))?,
    };
    let mut bound = BoundEntry {
        at,
        visibility,
        name: name.to_string(),
        reg,
        kind,
        null: e.null || kind == EntryKind::None,
        descriptor: Descriptor::Null(kind.view_class()),
        storage: Storage::None,
        counter: None,
        output,
        counter_output,
        subresource_outputs: Vec::new(),
    };
    if bound.null {
        return Ok(bound);
    }
    match kind {
        EntryKind::RawBuffer
        | EntryKind::StructuredBuffer { .. }
        | EntryKind::TypedBuffer { .. } => {
            if let (EntryKind::TypedBuffer { format }, Some(ResourceClass::Uav)) = (kind, class) {
                check_uav_format(format).map_err(&err)?;
            }
            let (view, memory) = make_buffer(e, kind, dir, name, budget)?;
            let counter = e.counter.map(Counter::new);
            bound.descriptor = Descriptor::Buffer {
                view,
                counter: counter.clone(),
            };
            bound.storage = Storage::Buffer(memory);
            bound.counter = counter;
        }
        EntryKind::ConstantBuffer => {
            let memory = make_cbuffer(e, dir, name, budget)?;
            bound.descriptor = Descriptor::ConstantBuffer {
                memory: memory.clone(),
                offset: 0,
                size: memory.len(),
            };
            bound.storage = Storage::Buffer(memory);
        }
        EntryKind::Texture { dim, format } => {
            let texture = make_texture(e, dim, format, dir, name, budget)?;
            let view = texture_view(e, &texture).map_err(&err)?;
            if class == Some(ResourceClass::Uav) {
                check_uav_format(view.format).map_err(&err)?;
            }
            // The program sees the view's format (a typeless texture's typed view).
            bound.kind = EntryKind::Texture {
                dim,
                format: view.format,
            };
            bound.descriptor = Descriptor::Texture(view);
            bound.subresource_outputs = subresource_outputs(e, &texture, dir).map_err(&err)?;
            bound.storage = Storage::Texture(texture);
        }
        EntryKind::Sampler { .. } => {
            bound.descriptor =
                Descriptor::Sampler(sampler_desc(&SamplerKeys::of(e)).map_err(&err)?);
        }
        EntryKind::AccelerationStructure => match e.acceleration_structure.as_deref() {
            Some(n) => {
                bound.descriptor = Descriptor::AccelerationStructure(
                    crate::resources::AccelerationStructure(accel.top(n).map_err(&err)?),
                );
            }
            // A command list's named structure without a job-built one: the storage its
            // `build_raytracing_acceleration_structure` commands write.
            None if at.table == Table::Resource && e.reg.is_none() && e.name.is_some() => {
                bound.descriptor = Descriptor::AccelerationStructureBuffer(
                    crate::resources::AccelerationStructureBuffer::new(),
                );
            }
            None => {
                return Err(err(
                    "missing `acceleration_structure` (the name of a top-level [[acceleration_structure]]; a command list's named structure may leave it out and be built by a `build_raytracing_acceleration_structure` command)".into(),
                ));
            }
        },
        EntryKind::Feedback { array, kind } => {
            let map = make_feedback(e, array, kind, paired).map_err(&err)?;
            budget.take(name, map.map.memory().len())?;
            bound.subresource_outputs = subresource_outputs(e, &map.map, dir).map_err(&err)?;
            bound.storage = Storage::Texture(map.map.clone());
            bound.descriptor = Descriptor::Feedback(map);
        }
        EntryKind::None => {}
    }
    Ok(bound)
}

/// Makes a feedback map: its paired texture (`paired`, looked up by `find` as a register
/// in the entry's space or a name), its kind and mip region (checked as
/// `resources::feedback::check_pairing` states), and the sizes the entry gives, which
/// must be the paired texture's ("Their width and height come from the paired
/// resource"; mip count and array size too).
fn make_feedback(
    e: &ResourceEntry,
    array: bool,
    kind: FeedbackKind,
    find: &dyn Fn(&str, u32) -> Result<TextureDesc, String>,
) -> Result<FeedbackMap, String> {
    let p = e
        .paired
        .as_deref()
        .ok_or("missing `paired` (the paired texture's register, \"t0\", or its `name`)")?;
    let desc = find(p, e.space.unwrap_or(0)).map_err(|m| format!("`paired` \"{p}\": {m}"))?;
    let want = if array {
        TextureDim::Tex2DArray
    } else {
        TextureDim::Tex2D
    };
    if desc.dim != want {
        return Err(format!(
            "`paired` \"{p}\" is a {}; a {} pairs with a {}",
            desc.dim.name(),
            if array {
                "feedback_texture2darray"
            } else {
                "feedback_texture2d"
            },
            want.name()
        ));
    }
    let region = e.mip_region.ok_or(
        "missing `mip_region` ([width, height] in texels of the paired texture: [4, 4] or larger powers of two)",
    )?;
    crate::resources::feedback::check_pairing(region, &desc)
        .map_err(|m| format!("`mip_region`: {m}"))?;
    for (key, given, paired) in [
        ("width", e.width, desc.width),
        ("height", e.height, desc.height),
        ("mips", e.mips, desc.mips),
        ("array_size", e.array_size, desc.depth_or_array_size),
    ] {
        if let Some(g) = given
            && g != paired
        {
            return Err(format!(
                "`{key}` {g} disagrees with the paired texture's {key} {paired} (a feedback map takes its sizes from its paired texture)"
            ));
        }
    }
    FeedbackMap::new(kind, region, &desc).map_err(|x| texture_message(&x.to_string()))
}

/// The `descriptor` value of a class.
fn descriptor_name(c: ResourceClass) -> &'static str {
    match c {
        ResourceClass::Srv => "srv",
        ResourceClass::Uav => "uav",
        ResourceClass::Cbv => "cbv",
        ResourceClass::Sampler => "sampler",
    }
}

/// Which `descriptor` a kind takes, for messages.
fn needed_descriptor(kind: &EntryKind) -> &'static str {
    match kind {
        EntryKind::ConstantBuffer => "\"cbv\"",
        EntryKind::Texture { dim, .. } if dim.is_cube() => "\"srv\"",
        EntryKind::AccelerationStructure => "\"srv\"",
        EntryKind::Feedback { .. } => "\"uav\"",
        _ => "\"srv\" or \"uav\"",
    }
}

/// Where a kind is bound, for messages.
fn needed_register(kind: &EntryKind) -> &'static str {
    match kind {
        EntryKind::ConstantBuffer => "a `b` register",
        EntryKind::Sampler { .. } => "an `s` register",
        EntryKind::Texture { dim, .. } if dim.is_cube() => "a `t` register",
        EntryKind::AccelerationStructure => "a `t` register",
        EntryKind::Feedback { .. } => "a `u` register",
        _ => "a `t` or `u` register",
    }
}

/// Which kinds a key is for, for the "does not apply" message.
fn applies_hint(key: &str) -> &'static str {
    match key {
        "stride" => " (it is for structured_buffer)",
        "counter" | "counter_output" => " (it is for structured_buffer UAVs)",
        "format" => " (it is for typed_buffer and textures)",
        "first_element" | "num_elements" => " (it is for raw, structured and typed buffers)",
        "size" => " (it is for buffers and cbuffer; textures take width/height/depth)",
        "width" | "mips" => " (it is for textures)",
        "height" => " (it is for 2D, 3D and cube textures)",
        "depth" => " (it is for texture3d; arrays take array_size)",
        "array_size" => " (it is for texture arrays and texturecubearray)",
        "samples" => " (it is for texture2dms and texture2dmsarray)",
        "data" | "output" => " (it is for buffers and textures)",
        "acceleration_structure" => " (it is for kind \"acceleration_structure\")",
        "paired" | "feedback" | "mip_region" => {
            " (it is for feedback_texture2d and feedback_texture2darray)"
        }
        _ => " (it is for samplers)",
    }
}

/// The entry's kind with its stride, format or comparison.
fn parse_kind(
    e: &ResourceEntry,
    kind_name: &str,
    dim: Option<TextureDim>,
) -> Result<EntryKind, String> {
    let format = || -> Result<Format, String> {
        let f = e.format.as_deref().ok_or_else(|| {
            format!("missing `format` (a DXGI name: \"R32_UINT\") for a {kind_name}")
        })?;
        parse_format(f)
    };
    Ok(match kind_name {
        "raw_buffer" => EntryKind::RawBuffer,
        "structured_buffer" => {
            let stride = match e.stride {
                Some(s) if (1..=MAX_STRIDE).contains(&s) => s,
                Some(s) => {
                    return Err(format!("`stride` {s} is not from 1 to {MAX_STRIDE} bytes"));
                }
                None if e.null => 0,
                None => return Err("missing `stride` (bytes per element)".into()),
            };
            EntryKind::StructuredBuffer { stride }
        }
        "typed_buffer" => EntryKind::TypedBuffer {
            format: if e.null && e.format.is_none() {
                Format::R32_UINT
            } else {
                format()?
            },
        },
        "cbuffer" => EntryKind::ConstantBuffer,
        "sampler" => {
            let comparison = match &e.filter {
                Some(f) => parse_filter(f)?.reduction == Reduction::Comparison,
                None => false,
            };
            EntryKind::Sampler { comparison }
        }
        "none" => EntryKind::None,
        "acceleration_structure" => EntryKind::AccelerationStructure,
        "feedback_texture2d" | "feedback_texture2darray" => {
            let kind = match e.feedback.as_deref() {
                Some(f) => FeedbackKind::from_name(f.trim()).ok_or_else(|| {
                    format!("`feedback` \"{f}\" is not \"min_mip\" or \"mip_region_used\"")
                })?,
                None if e.null => FeedbackKind::MinMip,
                None => {
                    return Err("missing `feedback` (\"min_mip\" or \"mip_region_used\")".into());
                }
            };
            EntryKind::Feedback {
                array: kind_name_is_array(kind_name),
                kind,
            }
        }
        _ => {
            let dim = dim.ok_or_else(|| format!("unknown kind \"{kind_name}\""))?;
            let format = if e.null && e.format.is_none() {
                Format::R8G8B8A8_UNORM
            } else if e.view_format.is_some() {
                // A typeless texture is fine when the view gives the type.
                let f = e.format.as_deref().ok_or_else(|| {
                    format!("missing `format` (a DXGI name: \"R32_UINT\") for a {kind_name}")
                })?;
                match Format::from_name(f) {
                    Some(t)
                        if t.channel_type() == ChannelType::Typeless || t.is_block_compressed() =>
                    {
                        t
                    }
                    _ => parse_texture_format(f)?,
                }
            } else {
                let f = e.format.as_deref().ok_or_else(|| {
                    format!("missing `format` (a DXGI name: \"R32_UINT\") for a {kind_name}")
                })?;
                parse_texture_format(f)?
            };
            EntryKind::Texture { dim, format }
        }
    })
}

fn parse_filter(f: &str) -> Result<Filter, String> {
    Filter::from_name(f).ok_or_else(|| {
        format!(
            "unknown filter \"{f}\" (D3D12_FILTER names without the prefix: \"MIN_MAG_MIP_POINT\", \"MIN_MAG_MIP_LINEAR\", \"ANISOTROPIC\", \"COMPARISON_MIN_MAG_MIP_LINEAR\", …)"
        )
    })
}

/// The bytes of a `data` table (a file read no further than `max` bytes) and whether it
/// is a fill (whose length is the resource's).
fn data_bytes(spec: &DataSpec, dir: &Path, max: u64) -> Result<Option<Vec<u8>>, String> {
    if spec.fill_u32.is_some() {
        // Still checks that only one form is given.
        data::bytes(spec, dir, max)?;
        return Ok(None);
    }
    data::bytes(spec, dir, max).map(Some)
}

/// Makes a buffer's memory and view.
fn make_buffer(
    e: &ResourceEntry,
    kind: EntryKind,
    dir: &Path,
    name: &str,
    budget: &mut Budget,
) -> Result<(BufferView, Memory), JobError> {
    let err = |m: String| JobError::entry(name, m);
    let (bk, elem) = match kind {
        EntryKind::StructuredBuffer { stride } => {
            (BufferKind::Structured { stride }, u64::from(stride))
        }
        EntryKind::TypedBuffer { format } => (
            BufferKind::Typed { format },
            u64::from(format.bytes_per_texel()),
        ),
        _ => (BufferKind::Raw, 4),
    };
    // A file can be as long as the buffer, or (no `size`) as the budget allows.
    let max = e.size.unwrap_or_else(|| budget.left());
    let listed = match &e.data {
        Some(d) => data_bytes(d, dir, max).map_err(&err)?,
        None => None,
    };
    let first = e.first_element.unwrap_or(0);
    let view_end = e
        .num_elements
        .map(|n| first.saturating_add(n).saturating_mul(elem));
    let size = match (e.size, &listed, view_end) {
        (Some(s), _, _) => s,
        (None, None, None) => {
            return Err(err(
                "missing `size` (bytes), and no `data` or `num_elements` to take it from".into(),
            ));
        }
        (None, l, v) => l.as_ref().map_or(0, |b| b.len() as u64).max(v.unwrap_or(0)),
    };
    if let Some(l) = &listed
        && l.len() as u64 > size
    {
        return Err(err(format!(
            "`data` holds {} bytes but the buffer has {size} (`size`)",
            l.len()
        )));
    }
    let whole = size / elem;
    if first > whole {
        return Err(err(format!(
            "`first_element` {first} is past the buffer's {whole} elements of {elem} bytes"
        )));
    }
    let num = e.num_elements.unwrap_or(whole - first);
    if first.saturating_add(num) > whole {
        return Err(err(format!(
            "`num_elements`: the view's elements {first}..{} end past the buffer's {whole} elements of {elem} bytes ({size} bytes)",
            first.saturating_add(num)
        )));
    }
    budget.take(name, size)?;
    if let Some(l) = &listed {
        budget.transient(
            name,
            l.len() as u64,
            "the bytes its `data` lists, copied in",
        )?;
    }
    let memory = Memory::zeroed(size).map_err(|e| err(format!("`size` {size} bytes: {e}")))?;
    match (&listed, e.data.as_ref().and_then(|d| d.fill_u32)) {
        (Some(bytes), _) => {
            memory.write_bytes(0, bytes);
        }
        (None, Some(word)) => memory.fill_words(word),
        (None, None) => {}
    }
    let view = BufferView {
        memory: memory.clone(),
        kind: bk,
        first_element: first,
        num_elements: num,
    };
    Ok((view, memory))
}

/// Makes a constant buffer's memory.
fn make_cbuffer(
    e: &ResourceEntry,
    dir: &Path,
    name: &str,
    budget: &mut Budget,
) -> Result<Memory, JobError> {
    let err = |m: String| JobError::entry(name, m);
    let listed = match &e.data {
        Some(d) => data_bytes(d, dir, e.size.unwrap_or(MAX_CBUFFER_BYTES)).map_err(&err)?,
        None => None,
    };
    let size = match (e.size, &listed) {
        (Some(s), _) => s,
        (None, Some(l)) => l.len() as u64,
        (None, None) => {
            return Err(err(
                "missing `size` (bytes), and no `data` to take it from".into()
            ));
        }
    };
    if size > MAX_CBUFFER_BYTES {
        return Err(err(format!(
            "`size` {size} is more than a constant buffer's {MAX_CBUFFER_BYTES} bytes"
        )));
    }
    if let Some(l) = &listed
        && l.len() as u64 > size
    {
        return Err(err(format!(
            "`data` holds {} bytes but the cbuffer has {size} (`size`)",
            l.len()
        )));
    }
    budget.take(name, size)?;
    let n = size as usize;
    let bytes = match (&listed, &e.data) {
        (Some(l), _) => {
            let mut b = l.clone();
            b.resize(n, 0);
            b
        }
        (None, spec) => data::fill(spec.as_ref(), dir, n).map_err(&err)?,
    };
    Memory::from_bytes(&bytes).map_err(|e| err(e.to_string()))
}

/// Makes a texture from its keys and data.
fn make_texture(
    e: &ResourceEntry,
    dim: TextureDim,
    format: Format,
    dir: &Path,
    name: &str,
    budget: &mut Budget,
) -> Result<Texture, JobError> {
    let err = |m: String| JobError::entry(name, m);
    let width = e
        .width
        .ok_or_else(|| err(format!("missing `width` for a {}", dim.name())))?;
    let height = match dim {
        TextureDim::Tex1D | TextureDim::Tex1DArray => 1,
        _ => e
            .height
            .ok_or_else(|| err(format!("missing `height` for a {}", dim.name())))?,
    };
    let depth_or_array_size = match dim {
        TextureDim::Tex3D => e.depth.unwrap_or(1),
        TextureDim::Cube => 6,
        TextureDim::CubeArray => e
            .array_size
            .unwrap_or(1)
            .checked_mul(6)
            .ok_or_else(|| err("`array_size` too large".into()))?,
        _ => e.array_size.unwrap_or(1),
    };
    if e.array_size == Some(0) {
        return Err(err("`array_size` is 0".into()));
    }
    if width == 0 || height == 0 || depth_or_array_size == 0 {
        let key = if width == 0 {
            "width"
        } else if height == 0 {
            "height"
        } else {
            "depth"
        };
        return Err(err(format!("`{key}` is 0")));
    }
    if dim.is_cube() && width != height {
        return Err(err(format!(
            "`height` {height}: cube faces are square (`width` is {width})"
        )));
    }
    let samples = e.samples.unwrap_or(1);
    if dim.is_multisampled() && ![1, 2, 4, 8, 16].contains(&samples) {
        return Err(err(format!("`samples` {samples} is not 1, 2, 4, 8 or 16")));
    }
    let mips = e.mips.unwrap_or(1);
    let longest = match dim {
        TextureDim::Tex3D => width.max(height).max(depth_or_array_size),
        _ => width.max(height),
    };
    let max_mips = 32 - longest.leading_zeros();
    if mips == 0 || mips > max_mips {
        return Err(err(format!(
            "`mips` {mips}: a texture of {} texels across has 1 to {max_mips}",
            longest
        )));
    }
    if dim.is_multisampled() && mips != 1 {
        return Err(err("`mips`: a multisampled texture has one mip".into()));
    }
    let desc = TextureDesc {
        dim,
        format,
        width,
        height,
        depth_or_array_size,
        mips,
        samples,
    };
    desc.validate().map_err(|e| {
        let m = texture_message(&e.to_string());
        if m.contains("block-compressed") {
            err(format!("`format`: {m}"))
        } else {
            err(m)
        }
    })?;
    budget.take(name, desc.total_bytes())?;
    let is_png = e
        .data
        .as_ref()
        .and_then(|d| d.file.as_ref())
        .and_then(|f| f.extension())
        .is_some_and(|x| x.eq_ignore_ascii_case("png"));
    let images = e.data.as_ref().and_then(|d| d.images.as_ref());
    let texture = if let Some(images) = images {
        // The texels are gathered in one buffer, then copied in.
        budget.transient(name, desc.total_bytes(), "its images' texels, gathered")?;
        texture_from_images(e, &desc, images, dir).map_err(&err)?
    } else if is_png {
        let spec = e.data.as_ref().and_then(|d| d.file.as_ref());
        let file = spec.map(|f| super::resolve(dir, f)).unwrap_or_default();
        // The file (read through `paths::read_input`, bounded by the image's size) and
        // its decoded texels are held while the texture is filled.
        budget.transient(
            name,
            desc.total_bytes().saturating_mul(3),
            "its PNG file and decoded texels",
        )?;
        let bytes = png::read_texels(&file, &desc).map_err(|m| err(format!("`data`: {m}")))?;
        Texture::from_bytes(desc, &bytes)
    } else {
        let total = desc.total_bytes();
        let listed = match &e.data {
            Some(d) => data_bytes(d, dir, total).map_err(&err)?,
            None => None,
        };
        if let Some(l) = &listed
            && l.len() as u64 > total
        {
            return Err(err(format!(
                "`data` holds {} bytes but the texture has {total} (all subresources tightly packed)",
                l.len()
            )));
        }
        if let Some(l) = &listed {
            budget.transient(
                name,
                l.len() as u64,
                "the bytes its `data` lists, copied in",
            )?;
        }
        let texture = Texture::from_bytes(desc, listed.as_deref().unwrap_or(&[]));
        if let (Ok(t), Some(word)) = (&texture, e.data.as_ref().and_then(|d| d.fill_u32)) {
            t.memory().fill_words(word);
        }
        texture
    };
    texture.map_err(|e| err(texture_message(&e.to_string())))
}

/// A texture filled from `data = { images = [...] }`: image `i` fills subresource `i` in
/// D3D12 order, converted as `image_io` states.
fn texture_from_images(
    e: &ResourceEntry,
    desc: &TextureDesc,
    images: &[PathBuf],
    dir: &Path,
) -> Result<Result<Texture, crate::resources::ResourceError>, String> {
    let d = e.data.as_ref();
    if d.is_some_and(|d| {
        d.u32.is_some()
            || d.i32.is_some()
            || d.f32.is_some()
            || d.hex.is_some()
            || d.fill_u32.is_some()
            || d.file.is_some()
    }) {
        return Err(
            "`data` needs exactly one of u32, i32, f32, hex, fill_u32, file or images".into(),
        );
    }
    let planes = if desc.dim == TextureDim::Tex3D {
        1
    } else {
        desc.array_size()
    };
    let count = desc.mips.saturating_mul(planes);
    if images.len() as u64 > u64::from(count) {
        return Err(format!(
            "`data.images` lists {} images but the texture has {count} subresources",
            images.len()
        ));
    }
    if desc.dim == TextureDim::Tex3D && desc.depth_or_array_size > 1 {
        return Err(
            "`data.images` fills 2D subresources; a 3D texture deeper than 1 takes raw `file` data"
                .into(),
        );
    }
    let total = usize::try_from(desc.total_bytes()).map_err(|_| "texture too large".to_string())?;
    let mut bytes = super::limits::zeroed_bytes(total)?;
    for (i, file) in images.iter().enumerate() {
        let (mip, slice) = (i as u32 % desc.mips, i as u32 / desc.mips);
        let (start, len, [w, h, _]) = super::image_io::subresource_range(desc, mip, slice)
            .ok_or_else(|| format!("`data.images` #{}: no such subresource", i + 1))?;
        let path = super::resolve(dir, file);
        let texels = super::image_io::read_texels(&path, desc.format, w, h)
            .map_err(|m| format!("`data.images` #{} (mip {mip}, slice {slice}): {m}", i + 1))?;
        let dst = bytes
            .get_mut(start as usize..(start + len) as usize)
            .ok_or_else(|| "texture too small".to_string())?;
        if texels.len() != dst.len() {
            return Err(format!("`data.images` #{}: size mismatch", i + 1));
        }
        dst.copy_from_slice(&texels);
    }
    Ok(Texture::from_bytes(*desc, &bytes))
}

/// The view a texture entry binds: the whole texture, or `view_format`, `view_mips` and
/// `view_slices` (D3D12's SRV/UAV description fields), checked against the texture.
fn texture_view(e: &ResourceEntry, texture: &Texture) -> Result<TextureView, String> {
    let mut view = TextureView::whole(texture.clone());
    if let Some(f) = &e.view_format {
        let fm = Format::from_name(f).ok_or_else(|| {
            let hint = closest(f, Format::ALL.iter().map(|f| f.name()))
                .map(|k| format!(" (did you mean {k}?)"))
                .unwrap_or_default();
            format!("`view_format`: unknown format \"{f}\"{hint}")
        })?;
        view.format = fm;
    }
    if view.format.channel_type() == ChannelType::Typeless || !view.format.is_texture_readable() {
        return Err(format!(
            "`{}`: {} cannot be read through a view (a typeless format needs `view_format`; R1 and subsampled formats are not supported)",
            if e.view_format.is_some() {
                "view_format"
            } else {
                "format"
            },
            view.format
        ));
    }
    if let Some([first, count]) = e.view_mips {
        view.most_detailed_mip = first;
        view.mip_levels = count;
    }
    if let Some([first, count]) = e.view_slices {
        view.first_slice = first;
        view.array_size = count;
    }
    view.validate().map_err(|m| {
        let key = if e.view_format.is_some() && m.to_string().contains("format") {
            "view_format"
        } else if e.view_mips.is_some() && m.to_string().contains("mips") {
            "view_mips"
        } else if e.view_slices.is_some()
            && (m.to_string().contains("slices") || m.to_string().contains("faces"))
        {
            "view_slices"
        } else {
            "format"
        };
        format!(
            "`{key}`: {}",
            texture_message(&m.to_string()).replace("bad view: ", "")
        )
    })?;
    Ok(view)
}

/// Refuses a format D3D12 cannot give a typed UAV (`Format::typed_uav`).
pub(crate) fn check_uav_format(format: Format) -> Result<(), String> {
    if format.typed_uav().is_some() {
        return Ok(());
    }
    Err(format!(
        "`format`: {format} cannot be a typed UAV (D3D12 gives sRGB, depth, block-compressed, shared-exponent, 96-bit and typeless formats no typed unordered access; bind it as an SRV, or use a UAV format such as R8G8B8A8_UNORM)"
    ))
}

/// A texture's `outputs`, resolved and checked against its subresources.
fn subresource_outputs(
    e: &ResourceEntry,
    texture: &Texture,
    dir: &Path,
) -> Result<Vec<SubresourceTarget>, String> {
    let mut out = Vec::new();
    for (i, o) in e.outputs.iter().flatten().enumerate() {
        super::image_io::subresource_range(texture.desc(), o.mip, o.slice).ok_or_else(|| {
            format!(
                "`outputs` #{}: mip {}, slice {} is not a subresource of this texture",
                i + 1,
                o.mip,
                o.slice
            )
        })?;
        let png = o
            .file
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("png"));
        if png && !png::is_png_format(texture.desc().format) {
            return Err(format!(
                "`outputs` #{}: a .png needs a format of 8-bit or 16-bit UNORM or sRGB channels, not {} (write .bin instead)",
                i + 1,
                texture.desc().format
            ));
        }
        out.push(SubresourceTarget {
            path: super::resolve(dir, &o.file),
            mip: o.mip,
            slice: o.slice,
        });
    }
    Ok(out)
}

/// A texture error in the job's words.
fn texture_message(m: &str) -> String {
    m.replace("bad texture: ", "")
}

/// The sampler keys of a `[[resource]]` or `[[sampler_heap]]` entry.
struct SamplerKeys<'a> {
    filter: Option<&'a str>,
    address: Option<&'a [String]>,
    mip_lod_bias: Option<f32>,
    max_anisotropy: Option<u32>,
    comparison: Option<&'a str>,
    border_color: Option<[f32; 4]>,
    min_lod: Option<f32>,
    max_lod: Option<f32>,
}

impl<'a> SamplerKeys<'a> {
    fn of(e: &'a ResourceEntry) -> Self {
        SamplerKeys {
            filter: e.filter.as_deref(),
            address: e.address.as_deref(),
            mip_lod_bias: e.mip_lod_bias,
            max_anisotropy: e.max_anisotropy,
            comparison: e.comparison.as_deref(),
            border_color: e.border_color,
            min_lod: e.min_lod,
            max_lod: e.max_lod,
        }
    }

    fn of_heap(e: &'a SamplerEntry) -> Self {
        SamplerKeys {
            filter: e.filter.as_deref(),
            address: e.address.as_deref(),
            mip_lod_bias: e.mip_lod_bias,
            max_anisotropy: e.max_anisotropy,
            comparison: e.comparison.as_deref(),
            border_color: e.border_color,
            min_lod: e.min_lod,
            max_lod: e.max_lod,
        }
    }
}

/// A `D3D12_SAMPLER_DESC` from the keys given, defaults for the rest (see the module doc).
fn sampler_desc(k: &SamplerKeys<'_>) -> Result<SamplerDesc, String> {
    let mut s = SamplerDesc::default();
    if let Some(f) = k.filter {
        s.filter = parse_filter(f)?;
    }
    if let Some(a) = k.address {
        let modes: Vec<AddressMode> = a
            .iter()
            .map(|m| {
                AddressMode::from_name(m).ok_or_else(|| {
                    format!(
                        "unknown address mode \"{m}\" (WRAP, MIRROR, CLAMP, BORDER or MIRROR_ONCE)"
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        s.address = match modes.as_slice() {
            [m] => [*m; 3],
            [u, v, w] => [*u, *v, *w],
            _ => {
                return Err(format!(
                    "`address` has {} modes; give one (for u, v and w) or three",
                    modes.len()
                ));
            }
        };
    }
    if let Some(b) = k.mip_lod_bias {
        s.mip_lod_bias = b;
    }
    if let Some(a) = k.max_anisotropy {
        if !(1..=16).contains(&a) {
            return Err(format!("`max_anisotropy` {a} is not from 1 to 16"));
        }
        s.max_anisotropy = a;
    }
    if let Some(c) = k.comparison {
        s.comparison = ComparisonFunc::from_name(c).ok_or_else(|| {
            format!(
                "unknown comparison \"{c}\" (NEVER, LESS, EQUAL, LESS_EQUAL, GREATER, NOT_EQUAL, GREATER_EQUAL or ALWAYS)"
            )
        })?;
    }
    if let Some(c) = k.border_color {
        s.border_color = c;
    }
    if let Some(l) = k.min_lod {
        s.min_lod = l;
    }
    if let Some(l) = k.max_lod {
        s.max_lod = l;
    }
    if s.min_lod.is_nan() || s.max_lod.is_nan() || s.mip_lod_bias.is_nan() {
        return Err("`min_lod`, `max_lod` and `mip_lod_bias` must be numbers, not NaN (D3D11.3 §7.18.11: a NaN LOD range is invalid)".into());
    }
    if s.min_lod > s.max_lod {
        return Err(format!(
            "`min_lod` {} is above `max_lod` {}",
            s.min_lod, s.max_lod
        ));
    }
    Ok(s)
}

/// Binds one `[[sampler_heap]]` entry.
fn bind_sampler_heap_entry(
    s: &SamplerEntry,
    at: EntryRef,
    name: &str,
) -> Result<BoundEntry, JobError> {
    let err = |m: String| JobError::entry(name, m);
    let kind = match s.kind.trim().to_ascii_lowercase().as_str() {
        "sampler" => {
            let comparison = match &s.filter {
                Some(f) => parse_filter(f).map_err(&err)?.reduction == Reduction::Comparison,
                None => false,
            };
            EntryKind::Sampler { comparison }
        }
        "none" => EntryKind::None,
        _ => {
            return Err(err(format!(
                "unknown kind \"{}\" (a [[sampler_heap]] entry is \"sampler\" or \"none\")",
                s.kind
            )));
        }
    };
    let descriptor = match kind {
        EntryKind::None => {
            let keys = SamplerKeys::of_heap(s);
            if keys.filter.is_some()
                || keys.address.is_some()
                || keys.mip_lod_bias.is_some()
                || keys.max_anisotropy.is_some()
                || keys.comparison.is_some()
                || keys.border_color.is_some()
                || keys.min_lod.is_some()
                || keys.max_lod.is_some()
            {
                return Err(err(
                    "an empty slot (kind \"none\") takes no sampler keys".into()
                ));
            }
            Descriptor::Null(ViewClass::Sampler)
        }
        _ => Descriptor::Sampler(sampler_desc(&SamplerKeys::of_heap(s)).map_err(&err)?),
    };
    Ok(BoundEntry {
        at,
        visibility: Visibility::All,
        name: name.to_string(),
        reg: None,
        kind,
        null: kind == EntryKind::None,
        descriptor,
        storage: Storage::None,
        counter: None,
        output: None,
        counter_output: None,
        subresource_outputs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::parse;

    fn bind(text: &str) -> Result<BoundJob, String> {
        let job = parse(text).map_err(|e| e.to_string())?;
        bind_job(&job, Path::new("."), DEFAULT_MAX_RESOURCE_BYTES).map_err(|e| e.to_string())
    }

    #[test]
    fn registers_parse() {
        let r = Register::parse("U12", 3).unwrap();
        assert_eq!(r.class, ResourceClass::Uav);
        assert_eq!(r.index, 12);
        assert_eq!(r.to_string(), "u12, space3");
        assert!(Register::parse("x1", 0).is_none());
        assert!(Register::parse("u", 0).is_none());
        assert!(Register::parse("u-1", 0).is_none());
    }

    /// Sizes come from `size`, else from the data and the view (module doc).
    #[test]
    fn buffer_sizes_and_views() {
        let b = bind(
            r#"
[program]
[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 8
data = { u32 = [1, 2, 3, 4, 5, 6] }
[[resource]]
reg = "t0"
kind = "typed_buffer"
format = "R16G16_FLOAT"
first_element = 2
num_elements = 3
[[resource]]
reg = "t1"
kind = "raw_buffer"
size = 64
data = { fill_u32 = 7 }
"#,
        )
        .unwrap();
        let Descriptor::Buffer { view, .. } = &b.resources[0].descriptor else {
            panic!()
        };
        assert_eq!((view.memory.len(), view.num_elements), (24, 3));
        let Descriptor::Buffer { view, .. } = &b.resources[1].descriptor else {
            panic!()
        };
        assert_eq!(
            (view.memory.len(), view.first_element, view.num_elements),
            (20, 2, 3)
        );
        assert_eq!(b.resources[2].contents().unwrap()[60], 7);
    }

    #[test]
    fn cube_arrays_count_cubes() {
        let b = bind(
            r#"
[program]
[[resource]]
reg = "t0"
kind = "texturecubearray"
format = "R8_UNORM"
width = 2
height = 2
array_size = 2
"#,
        )
        .unwrap();
        let t = b.resources[0].texture().unwrap();
        assert_eq!(t.desc().depth_or_array_size, 12);
        assert_eq!(t.memory().len(), 48);
    }

    #[test]
    fn sampler_defaults_are_d3d_defaults() {
        let b = bind(
            r#"
[program]
[[resource]]
reg = "s0"
kind = "sampler"
[[resource]]
reg = "s1"
kind = "sampler"
filter = "COMPARISON_MIN_MAG_MIP_POINT"
address = ["WRAP"]
comparison = "LESS"
"#,
        )
        .unwrap();
        assert_eq!(
            b.resources[0].descriptor,
            Descriptor::Sampler(SamplerDesc::default())
        );
        assert_eq!(b.resources[1].kind, EntryKind::Sampler { comparison: true });
        let Descriptor::Sampler(s) = b.resources[1].descriptor else {
            panic!()
        };
        assert_eq!(s.address, [AddressMode::Wrap; 3]);
    }
}
