//! Descriptors: what a shader's resource binding (or descriptor-heap slot) refers to.

use std::sync::{Arc, RwLock};

use crate::raytracing::{BottomLevel, TopLevel};

use super::buffer::{BufferView, Counter};
use super::feedback::FeedbackMap;
use super::memory::Memory;
use super::sampler::SamplerDesc;
use super::texture::TextureView;

/// The broad kind of a descriptor, which is all a null descriptor states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewClass {
    /// A buffer view (raw, structured or typed).
    Buffer,
    /// A texture view.
    Texture,
    /// A constant buffer view.
    ConstantBuffer,
    /// A sampler.
    Sampler,
    /// A ray tracing acceleration structure (an SRV of
    /// `D3D12_SRV_DIMENSION_RAYTRACING_ACCELERATION_STRUCTURE`).
    AccelerationStructure,
    /// A sampler feedback map's UAV (`CreateSamplerFeedbackUnorderedAccessView`).
    Feedback,
}

impl ViewClass {
    /// A word for messages.
    pub fn name(self) -> &'static str {
        match self {
            ViewClass::Buffer => "buffer",
            ViewClass::Texture => "texture",
            ViewClass::ConstantBuffer => "constant buffer",
            ViewClass::Sampler => "sampler",
            ViewClass::AccelerationStructure => "acceleration structure",
            ViewClass::Feedback => "feedback map",
        }
    }
}

/// One descriptor.
#[derive(Debug, Clone, PartialEq)]
pub enum Descriptor {
    /// A null descriptor of a kind: reads give 0, writes are dropped, dimensions are 0.
    Null(ViewClass),
    /// An element of a declared descriptor range that was never written (D3D12 resource
    /// binding tier 3 lets descriptors no lane accesses stay unwritten). It behaves as a
    /// null descriptor of its kind, except that execution stops with an error naming the
    /// lane, the instruction and the element when a lane accesses it.
    Unbound(ViewClass),
    /// A buffer view, with the UAV's hidden counter when it has one.
    Buffer {
        /// The view.
        view: BufferView,
        /// The counter (append/consume, `IncrementCounter`).
        counter: Option<Counter>,
    },
    /// A texture view.
    Texture(TextureView),
    /// A constant buffer view: `size` bytes of `memory` from byte `offset`.
    ConstantBuffer {
        /// The storage.
        memory: Memory,
        /// First byte.
        offset: u64,
        /// Size in bytes; reads past it give 0.
        size: u64,
    },
    /// A sampler.
    Sampler(SamplerDesc),
    /// A top-level acceleration structure, shared by every descriptor that views it (the
    /// built structure is immutable, so sharing it is the same as D3D12's GPU address).
    AccelerationStructure(AccelerationStructure),
    /// A buffer that a command list's `BuildRaytracingAccelerationStructure` writes, viewed
    /// as an acceleration structure: what it holds is read when a program traces (after
    /// the build commands before it have run).
    AccelerationStructureBuffer(AccelerationStructureBuffer),
    /// A sampler feedback map with its paired texture's description (a UAV of
    /// `CreateSamplerFeedbackUnorderedAccessView`; writable only by
    /// `WriteSamplerFeedback*`).
    Feedback(FeedbackMap),
}

/// A built top-level acceleration structure as a descriptor views it: shared, immutable
/// (D3D12 reads a structure through its GPU address; sharing the built value is the same
/// thing). Two are equal when they are the same structure.
#[derive(Clone)]
pub struct AccelerationStructure(pub Arc<TopLevel>);

impl PartialEq for AccelerationStructure {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for AccelerationStructure {
    // The hierarchy itself is large and says nothing a message needs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AccelerationStructure({} instances)",
            self.0.instances().len()
        )
    }
}

/// What a build wrote into an [`AccelerationStructureBuffer`].
#[derive(Clone)]
pub enum BuiltStructure {
    /// A bottom-level structure (instances of a top level point at it).
    Bottom(Arc<BottomLevel>),
    /// A top-level structure (what a descriptor views).
    Top(Arc<TopLevel>),
}

/// The storage of an acceleration structure a command list builds: empty until a build
/// command writes it, then the structure of the latest build. Clones share it (D3D12's
/// descriptors and instance descriptions point at one buffer), so a build is seen by
/// every descriptor made before it. Two are equal when they are the same buffer.
#[derive(Clone, Default)]
pub struct AccelerationStructureBuffer(Arc<RwLock<Option<BuiltStructure>>>);

impl AccelerationStructureBuffer {
    /// An empty buffer (nothing built yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// What the latest build wrote, if any.
    pub fn get(&self) -> Option<BuiltStructure> {
        // A poisoned lock only means a writer panicked mid-store of one `Option`,
        // which is replaced whole: what it holds is still one value.
        match self.0.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// Replaces what the buffer holds (a build's result).
    pub fn set(&self, built: BuiltStructure) {
        match self.0.write() {
            Ok(mut g) => *g = Some(built),
            Err(p) => *p.into_inner() = Some(built),
        }
    }

    /// Whether `self` and `other` are one buffer.
    pub fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl PartialEq for AccelerationStructureBuffer {
    fn eq(&self, other: &Self) -> bool {
        self.same(other)
    }
}

impl std::fmt::Debug for AccelerationStructureBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get() {
            None => write!(f, "AccelerationStructureBuffer(not built)"),
            Some(BuiltStructure::Bottom(b)) => write!(
                f,
                "AccelerationStructureBuffer(bottom level, {} geometries)",
                b.geometries().len()
            ),
            Some(BuiltStructure::Top(t)) => write!(
                f,
                "AccelerationStructureBuffer(top level, {} instances)",
                t.instances().len()
            ),
        }
    }
}

impl Descriptor {
    /// The top-level structure a descriptor views: a built structure, or what a list's
    /// acceleration-structure buffer holds now. `None` for any other descriptor, a
    /// buffer not built yet or holding a bottom level (DXR binds top levels only; a ray
    /// against no structure misses, as against a null descriptor).
    pub fn top_level(&self) -> Option<Arc<TopLevel>> {
        match self {
            Descriptor::AccelerationStructure(a) => Some(a.0.clone()),
            Descriptor::AccelerationStructureBuffer(b) => match b.get() {
                Some(BuiltStructure::Top(t)) => Some(t),
                _ => None,
            },
            _ => None,
        }
    }

    /// The descriptor's broad kind.
    pub fn class(&self) -> ViewClass {
        match self {
            Descriptor::Null(c) | Descriptor::Unbound(c) => *c,
            Descriptor::Buffer { .. } => ViewClass::Buffer,
            Descriptor::Texture(_) => ViewClass::Texture,
            Descriptor::ConstantBuffer { .. } => ViewClass::ConstantBuffer,
            Descriptor::Sampler(_) => ViewClass::Sampler,
            Descriptor::AccelerationStructure(_) | Descriptor::AccelerationStructureBuffer(_) => {
                ViewClass::AccelerationStructure
            }
            Descriptor::Feedback(_) => ViewClass::Feedback,
        }
    }

    /// Whether this is a null descriptor.
    pub fn is_null(&self) -> bool {
        matches!(self, Descriptor::Null(_))
    }

    /// Reads the 32-bit word at byte `addr` of a constant buffer (any alignment); 0 past
    /// its size or for another kind of descriptor.
    #[inline]
    pub fn cb_read_u32(&self, addr: u64) -> u32 {
        match self {
            Descriptor::ConstantBuffer {
                memory,
                offset,
                size,
            } => {
                if addr.checked_add(4).is_none_or(|e| e > *size) {
                    return 0;
                }
                offset
                    .checked_add(addr)
                    .and_then(|a| memory.load_u32(a))
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_buffer_reads_are_robust() {
        let m = Memory::from_bytes(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]).unwrap();
        let d = Descriptor::ConstantBuffer {
            memory: m,
            offset: 4,
            size: 4,
        };
        assert_eq!(d.cb_read_u32(0), 2);
        assert_eq!(d.cb_read_u32(4), 0);
        assert_eq!(d.cb_read_u32(u64::MAX), 0);
        assert_eq!(
            Descriptor::Null(ViewClass::ConstantBuffer).cb_read_u32(0),
            0
        );
        assert_eq!(d.class(), ViewClass::ConstantBuffer);
    }
}
