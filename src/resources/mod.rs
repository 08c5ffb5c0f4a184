//! Buffers, textures, samplers and DXGI formats, with D3D's robust access rules.
//!
//! Owns: the storage programs read and write ([`Memory`]: shared, thread-safe bytes),
//! views of it ([`BufferView`], [`TextureView`], constant buffers), UAV [`Counter`]s,
//! [`SamplerDesc`]s, sampler feedback maps ([`feedback`]), the [`Descriptor`]s a binding holds, DXGI [`Format`]s and their
//! texel conversions, block-compressed decoding ([`bc`]), and texture filtering
//! ([`sample`], whose module doc lists every precision choice with its D3D11.3 section).
//!
//! Does not own: shaders, lanes or bindings by register (see `exec` and `pipeline`). This
//! module depends on nothing else in the crate.
//!
//! # Robust access
//!
//! Every read through a view that falls outside it (or outside its memory) gives 0 and
//! every such write is dropped, per D3D's out-of-bounds rules; no access panics. Each
//! view type states what "outside" means for it (see [`buffer`], [`texture`]).

pub mod bc;
pub mod buffer;
pub mod descriptor;
pub mod feedback;
pub mod format;
pub mod memory;
pub mod sample;
pub mod sample_site;
pub mod sampler;
pub mod texture;

pub use buffer::{BufferKind, BufferView, Counter};
pub use descriptor::{
    AccelerationStructure, AccelerationStructureBuffer, BuiltStructure, Descriptor, ViewClass,
};
pub use feedback::{FeedbackKind, FeedbackMap};
pub use format::{ChannelType, Format, UavLoad};
pub use memory::{MAX_MEMORY_BYTES, Memory, RmwOp};
pub use sample::{Lod, SampleInput};
pub use sampler::{AddressMode, ComparisonFunc, Filter, FilterType, Reduction, SamplerDesc};
pub use texture::{Texture, TextureDesc, TextureDim, TextureView};

/// Why a resource could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    /// The memory asked for is larger than the limit.
    #[error("{bytes} bytes is more than the {limit}-byte limit of one resource")]
    TooLarge {
        /// Bytes asked for.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The system refused the allocation (the budget allowed it).
    #[error("the system refused {bytes} bytes of memory")]
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// Initial data longer than the resource.
    #[error("{given} bytes of data for a resource of {size} bytes")]
    DataTooLong {
        /// Bytes given.
        given: u64,
        /// Size of the resource.
        size: u64,
    },
    /// The format's texels cannot be decoded (subsampled and 1-bit formats).
    #[error("format {0} is not supported for textures yet")]
    UnsupportedFormat(Format),
    /// A texture description breaks a rule.
    #[error("bad texture: {0}")]
    BadTexture(String),
    /// A view does not fit its resource.
    #[error("bad view: {0}")]
    BadView(String),
}
