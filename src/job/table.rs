//! A prepared or finished job's resources by where the job binds them: the one table
//! `capture` (compare, `--record`) reads resources through, so it never looks inside
//! the binding step's entries.
//!
//! Owns: the address of a resource ([`ResourceAt`]: a register, a heap slot, a draw's
//! render target or its depth-stencil buffer), finding one ([`Prepared::resource`]) with
//! what a comparison needs to read it ([`ResourceRef`]: a buffer's memory and how its
//! view reads it, or a texture), and the resources a run writes or the job names as
//! outputs ([`Prepared::written`], [`Finished::written`]).

use std::fmt;

use super::bind::{BoundEntry, BoundJob, Register, Storage, Table};
use super::targets::{BoundDepth, BoundTarget};
use super::{Finished, JobFile, Prepared};
use crate::ir::ResourceClass;
use crate::resources::{BufferKind, Descriptor, Format, Memory, Texture};

/// Where a job binds a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceAt {
    /// A `[[resource]]` bound at a register (`u0`, `t1, space2`).
    Register(Register),
    /// Slot `i` of the SM 6.6 resource descriptor heap (`[[heap]]` entry `i`).
    Heap(u32),
    /// Render target `i` of a draw (`[[draw.render_target]]` entry `i`).
    RenderTarget(u32),
    /// The draw's depth-stencil buffer (`[draw.depth_stencil]`).
    DepthStencil,
    /// `[[resource]]` entry `i` of a command list, which a capture names by its `name`
    /// (a list binds its resources per command, so they have no one register).
    Named(u32),
}

impl fmt::Display for ResourceAt {
    /// `u0`, `t1, space2`, `heap[3]`, `rt0`, `depth`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceAt::Register(r) => write!(f, "{r}"),
            ResourceAt::Heap(i) => write!(f, "heap[{i}]"),
            ResourceAt::RenderTarget(i) => write!(f, "rt{i}"),
            ResourceAt::DepthStencil => f.write_str("depth"),
            ResourceAt::Named(i) => write!(f, "resource #{}", u64::from(*i) + 1),
        }
    }
}

impl ResourceAt {
    /// A file name stem for the address: `u0`, `t1-space2`, `heap3`, `rt0`, `depth`.
    pub fn file_stem(&self) -> String {
        match self {
            ResourceAt::Register(r) if r.space != 0 => {
                format!("{}{}-space{}", r.class.letter(), r.index, r.space)
            }
            ResourceAt::Register(r) => format!("{}{}", r.class.letter(), r.index),
            ResourceAt::Heap(i) => format!("heap{i}"),
            ResourceAt::RenderTarget(i) => format!("rt{i}"),
            ResourceAt::DepthStencil => "depth".into(),
            ResourceAt::Named(i) => format!("resource{}", u64::from(*i) + 1),
        }
    }

    /// Whether the address is a render target or depth-stencil buffer (its writers are
    /// pixels, its layout a texture's).
    pub fn is_draw_output(&self) -> bool {
        matches!(self, ResourceAt::RenderTarget(_) | ResourceAt::DepthStencil)
    }
}

/// How a buffer's view reads its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferRead {
    /// A raw (byte address) view.
    Raw,
    /// A structured view of `stride`-byte elements.
    Structured {
        /// Bytes per element.
        stride: u32,
    },
    /// A typed view.
    Typed {
        /// The view's format.
        format: Format,
    },
    /// A constant buffer view.
    Constant,
}

/// A resource's storage, as a comparison reads it.
#[derive(Debug, Clone, Copy)]
pub enum ResourceData<'a> {
    /// A buffer.
    Buffer {
        /// All of its memory.
        memory: &'a Memory,
        /// How its view reads it.
        read: BufferRead,
        /// The view's first byte.
        view_offset: u64,
    },
    /// A texture (also render targets and depth-stencil buffers).
    Texture(&'a Texture),
}

/// One resource found by its address.
#[derive(Debug, Clone)]
pub struct ResourceRef<'a> {
    /// What the job binds there, for messages: `raw buffer`, `render target`.
    pub kind: String,
    /// Its storage.
    pub data: ResourceData<'a>,
    /// Its UAV counter's value, when it has one.
    pub counter: Option<u32>,
}

impl ResourceRef<'_> {
    /// Its storage's current bytes (all subresources of a texture).
    pub fn contents(&self) -> Vec<u8> {
        match self.data {
            ResourceData::Buffer { memory, .. } => memory.to_bytes(),
            ResourceData::Texture(t) => t.to_bytes(),
        }
    }
}

impl Prepared {
    /// The resource the job binds at `at`, or why there is none to read.
    pub fn resource(&self, at: ResourceAt) -> Result<ResourceRef<'_>, String> {
        find(
            &self.bound,
            &self.targets,
            self.depth.as_ref(),
            self.is_draw(),
            at,
        )
    }

    /// A command list's named resource (`[[resource]]` with `name`), or why there is none
    /// to read.
    pub fn resource_named(&self, name: &str) -> Result<ResourceRef<'_>, String> {
        let e = self
            .job
            .file
            .resources
            .iter()
            .position(|e| e.name.as_deref() == Some(name))
            .and_then(|i| self.bound.resources.get(i))
            .ok_or_else(|| format!("no [[resource]] is named \"{name}\""))?;
        let data = data_of(e).ok_or_else(|| format!("{} has no contents", e.name))?;
        Ok(ResourceRef {
            kind: e.kind.describe(),
            data,
            counter: e.counter.as_ref().map(|c| c.get()),
        })
    }

    /// Every resource a run of the job may write or the job names as an output, by
    /// address: a draw's render targets and depth-stencil buffer, then the UAVs (at a
    /// `u` register or a `uav` heap slot) and the resources with an `output`.
    pub fn written(&self) -> Vec<(ResourceAt, Memory)> {
        written(
            &self.job.file,
            &self.bound,
            &self.targets,
            self.depth.as_ref(),
        )
    }
}

impl Finished {
    /// [`Prepared::written`], after the run.
    pub fn written(&self, job: &JobFile) -> Option<Vec<(ResourceAt, Memory)>> {
        match self {
            Finished::Dispatch(r) => Some(written(job, &r.bound, &[], None)),
            Finished::Draw(r) => Some(written(job, &r.bound, &r.targets, r.depth.as_ref())),
            Finished::Rays(r) => Some(written(job, &r.bound, &[], None)),
            Finished::List(r) => Some(written(job, &r.bound, &[], None)),
        }
    }
}

fn find<'a>(
    bound: &'a BoundJob,
    targets: &'a [BoundTarget],
    depth: Option<&'a BoundDepth>,
    is_draw: bool,
    at: ResourceAt,
) -> Result<ResourceRef<'a>, String> {
    let e = match (is_draw, at) {
        (true, ResourceAt::RenderTarget(i)) => {
            let rt = targets.get(i as usize).ok_or_else(|| {
                format!(
                    "`render_target` {i}: the draw has {} render target{} ([[draw.render_target]] entries)",
                    targets.len(),
                    if targets.len() == 1 { "" } else { "s" }
                )
            })?;
            return Ok(ResourceRef {
                kind: "render target".into(),
                data: ResourceData::Texture(&rt.view.texture),
                counter: None,
            });
        }
        (true, ResourceAt::DepthStencil) => {
            let d = depth.ok_or("`depth`: the draw has no [draw.depth_stencil]")?;
            return Ok(ResourceRef {
                kind: "depth-stencil".into(),
                data: ResourceData::Texture(&d.view.texture),
                counter: None,
            });
        }
        (false, ResourceAt::RenderTarget(_) | ResourceAt::DepthStencil) => {
            return Err(format!(
                "{at}: render targets and depth belong to draw jobs; this job is a compute dispatch"
            ));
        }
        (_, ResourceAt::Named(i)) => bound.resources.get(i as usize).ok_or_else(|| {
            format!(
                "{at}: the job has {} [[resource]] entries",
                bound.resources.len()
            )
        })?,
        (_, ResourceAt::Register(r)) => &bound.resources[bound.register_index(r)?],
        (_, ResourceAt::Heap(i)) => bound.heap.get(i as usize).ok_or_else(|| {
            format!(
                "`heap` {i}: the job has {} [[heap]] entries",
                bound.heap.len()
            )
        })?,
    };
    let data = data_of(e).ok_or_else(|| {
        if e.storage == Storage::None {
            format!(
                "{} has no contents to compare (a sampler or a null descriptor)",
                e.name
            )
        } else {
            format!("{} has no contents to compare", e.name)
        }
    })?;
    Ok(ResourceRef {
        kind: e.kind.describe(),
        data,
        counter: e.counter.as_ref().map(|c| c.get()),
    })
}

fn data_of(e: &BoundEntry) -> Option<ResourceData<'_>> {
    match (&e.storage, &e.descriptor) {
        (Storage::Texture(t), _) => Some(ResourceData::Texture(t)),
        (Storage::Buffer(m), Descriptor::Buffer { view, .. }) => Some(ResourceData::Buffer {
            memory: m,
            read: match view.kind {
                BufferKind::Raw => BufferRead::Raw,
                BufferKind::Structured { stride } => BufferRead::Structured { stride },
                BufferKind::Typed { format } => BufferRead::Typed { format },
            },
            view_offset: view.byte_offset(),
        }),
        (Storage::Buffer(m), Descriptor::ConstantBuffer { offset, .. }) => {
            Some(ResourceData::Buffer {
                memory: m,
                read: BufferRead::Constant,
                view_offset: *offset,
            })
        }
        _ => None,
    }
}

fn written(
    job: &JobFile,
    bound: &BoundJob,
    targets: &[BoundTarget],
    depth: Option<&BoundDepth>,
) -> Vec<(ResourceAt, Memory)> {
    let mut out: Vec<(ResourceAt, Memory)> = targets
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                ResourceAt::RenderTarget(i as u32),
                t.view.texture.memory().clone(),
            )
        })
        .collect();
    if let Some(d) = depth {
        out.push((ResourceAt::DepthStencil, d.view.texture.memory().clone()));
    }
    out.extend(bound.all().filter_map(|e| {
        let at = written_at(job, e)?;
        Some((at, e.memory()?.clone()))
    }));
    out
}

/// The address of a bound entry a run may write (a UAV) or the job names as an output.
/// In a command list every named resource with contents counts: any command may write
/// it (a render target, a depth buffer, a copy's destination, a UAV), and a capture
/// taken after a list reads them by name.
fn written_at(job: &JobFile, e: &BoundEntry) -> Option<ResourceAt> {
    if e.storage == Storage::None || e.null {
        return None;
    }
    if !job.commands.is_empty() {
        return match e.at.table {
            Table::Resource => Some(ResourceAt::Named(u32::try_from(e.at.index).ok()?)),
            Table::Heap | Table::SamplerHeap => None,
        };
    }
    let at = match (e.at.table, e.reg) {
        (Table::Resource, Some(r)) => ResourceAt::Register(r),
        (Table::Heap, _) => ResourceAt::Heap(e.at.index as u32),
        _ => return None,
    };
    let uav = match at {
        ResourceAt::Register(r) => r.class == ResourceClass::Uav,
        ResourceAt::Heap(i) => job
            .heap
            .get(i as usize)
            .and_then(|h| h.descriptor.as_deref())
            .is_some_and(|d| d.eq_ignore_ascii_case("uav")),
        _ => false,
    };
    (uav || e.output.is_some()).then_some(at)
}
