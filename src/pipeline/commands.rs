//! Command lists: an ordered list of D3D12 commands — dispatches, draws, clears, copies
//! and indirect executions — run as one list on one queue over shared resources.
//!
//! Owns the commands that are not a dispatch or a draw (clears, copies,
//! `ExecuteIndirect`, queries, predication, `DrawAuto`), with the D3D12 rule each
//! follows, and running a list in order.
//! Does not own: the dispatch and the draw themselves (`dispatch`, `draw`), resource
//! storage (`resources`), or the job file's vocabulary for naming resources and checking
//! a command's fields before the list runs (`job`).
//!
//! # Rules
//!
//! - **Order implies state transitions.** D3D12 makes an application place resource
//!   barriers between a write and a later read ("Using Resource Barriers to Synchronize
//!   Resource States in Direct3D 12"); a list here has its barriers implied by order, so
//!   every command sees every write of the commands before it, UAV writes included (the
//!   UAV barrier D3D12 asks for between two dispatches writing one UAV is implied too).
//!   Commands share storage: a draw writes the render target's own memory, so N draws
//!   into one target never copy it.
//! - **One budget.** The list's lane-instructions and its time limit are one
//!   `exec::RunBudget` (`Plan::limits`), charged by every command's lanes; a clear or a
//!   copy checks the clock.
//! - **Clears** write every texel and every sample of one subresource.
//!   `ClearRenderTargetView` converts the colour to the view's format as a pixel
//!   program's output is converted (float bits for float, UNORM, SNORM and sRGB formats;
//!   integer formats take the value converted to an integer, saturated to the 32-bit
//!   range, then narrowed by the format). `ClearDepthStencilView` writes the depth, the
//!   stencil or both (`D3D12_CLEAR_FLAG_DEPTH` / `…_STENCIL`), the depth clamped to
//!   [0, 1] and stored as the depth buffer stores depth. `ClearUnorderedAccessViewUint`
//!   / `…Float` on a buffer viewed without a format (raw or structured) write the first
//!   value to every 32-bit word of the view (D3D12: "the first component is written to
//!   each DWORD" of a raw view); on a typed view or a texture, the four values are
//!   encoded in the view's format (`Uint`: as integers; `Float`: as floats).
//! - **Copies** move bytes unchanged. `CopyResource` copies every byte of the source to
//!   the destination (the same size and a copy-compatible format, checked by the caller);
//!   `CopyBufferRegion` copies `bytes` bytes between offsets; `CopyTextureRegion` copies
//!   a box of texels (whole blocks of a block-compressed format) of one subresource to a
//!   point of another. Regions are checked before the list runs.
//! - **`ExecuteIndirect`** reads its arguments when it runs, so a compute program earlier
//!   in the list can write them. The count is `MaxCommandCount`, or with a count buffer
//!   the smaller of it and the count buffer's 32-bit value (the method's documented
//!   pseudo-code); arguments follow one another at the command signature's byte stride:
//!   `D3D12_DISPATCH_ARGUMENTS` (three group counts), `D3D12_DRAW_ARGUMENTS` (vertex
//!   count, instance count, start vertex, start instance),
//!   `D3D12_DRAW_INDEXED_ARGUMENTS` (index count, instance count, start index, base
//!   vertex, start instance), `D3D12_DISPATCH_MESH_ARGUMENTS` (three group counts of a
//!   mesh draw, each record's grid held to the DispatchMesh API's limits:
//!   `amplification::check_grid`). A dispatch with a zero group count runs nothing (D3D11.3
//!   §18.6.4: "if any of the dispatch counts is 0, the dispatch is a no-op"); a count past
//!   `D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION` (65,535) is an error naming the
//!   command and the argument.
//! - **Placed footprints.** `CopyTextureRegion` between a subresource and a buffer puts
//!   texel (or block) `(x, y, z)` of the footprint at `Offset + (z × rows + y) ×
//!   RowPitch + x × bytes` (`D3D12_PLACED_SUBRESOURCE_FOOTPRINT`; alignment, format and
//!   extent checked before the list runs).
//! - **Queries and predication** (`query` states the rules): a command carries the
//!   predicate and the open queries the list's order gives it ([`Gated`]); it is skipped
//!   when the predicate's value, read as it runs, says so, and what it runs is added to
//!   each open query. `DrawAuto` reads its vertex count from a stream-output filled size
//!   when it runs ([`DrawAuto`]).
//! - **`ResolveSubresource`** averages each texel's samples (`om::resolve_into` states
//!   the rule); the source is multisampled, the destination single-sampled, both of one
//!   size and format, and the format one D3D12 can resolve (float, UNORM, SNORM, sRGB:
//!   not integer or depth), checked before the list runs. `ResolveSubresourceRegion`'s
//!   MIN, MAX, AVERAGE and DECOMPRESS modes move a rectangle of one subresource, one
//!   plane of a depth-stencil resource (`om::resolve` states the rules).
//! - **`BuildRaytracingAccelerationStructure`** reads its inputs from memory when it
//!   runs, so a copy or dispatch earlier in the list can write them, and stores the
//!   structure in its destination, which every descriptor of it sees from then on
//!   (`accel_build` states the rules).

use std::time::Instant;

use super::dispatch::{DispatchHooks, dispatch_with};
use super::draw::{DrawError, DrawOptions, draw_charged};
use super::om;
use super::plan::Plan;
use super::pso::PsoCache;
use super::query::{ActiveQuery, Predicate, QueryHeap, QueryType, Resolve, ResolvedQuery};
use super::state::DrawArgs;
use super::work::{DispatchWork, DrawWork, Hooks, Work, WorkReport};
use crate::exec::{ExecError, RunBudget};
use crate::resources::feedback::NOT_REQUESTED;
use crate::resources::{ChannelType, FeedbackKind, FeedbackMap, Format, Memory, Texture};

/// D3D12's largest thread-group count per dimension.
pub const MAX_GROUPS_PER_DIMENSION: u32 = 65_535;

/// One command of a list.
#[derive(Debug, Clone)]
// A dispatch's work is held inline: a list holds at most a few thousand commands, and
// boxing would cost an allocation per command to save a few hundred bytes each.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// `Dispatch` or `DrawInstanced` / `DrawIndexedInstanced`, with their state.
    Work(Work),
    /// `ClearRenderTargetView` of subresource (`mip`, `slice`).
    ClearRenderTarget {
        /// The resource.
        texture: Texture,
        /// The mip.
        mip: u32,
        /// The array slice.
        slice: u32,
        /// RGBA.
        color: [f32; 4],
    },
    /// `ClearDepthStencilView` of the depth buffer's subresource (`mip`, `slice`).
    ClearDepthStencil {
        /// The resource.
        texture: Texture,
        /// The mip.
        mip: u32,
        /// The array slice.
        slice: u32,
        /// `D3D12_CLEAR_FLAG_DEPTH`: the depth.
        depth: Option<f32>,
        /// `D3D12_CLEAR_FLAG_STENCIL`: the stencil.
        stencil: Option<u8>,
    },
    /// `ClearUnorderedAccessViewUint` / `…Float` of a buffer view without a format:
    /// `count` words from word `first`, each `value`.
    ClearBufferWords {
        /// The buffer.
        memory: Memory,
        /// The first word.
        first: u64,
        /// Words.
        count: u64,
        /// The value (a float's bits for `…Float`).
        value: u32,
    },
    /// `ClearUnorderedAccessViewUint` / `…Float` of a typed buffer view: `count`
    /// elements of `format` from element `first`.
    ClearTypedBuffer {
        /// The buffer.
        memory: Memory,
        /// The view's format.
        format: Format,
        /// The first element.
        first: u64,
        /// Elements.
        count: u64,
        /// The four values as the format's encoder takes them: integers, or float bits.
        value: [u32; 4],
    },
    /// `ClearUnorderedAccessViewUint` / `…Float` of a texture's subresource.
    ClearTexture {
        /// The resource.
        texture: Texture,
        /// The mip.
        mip: u32,
        /// The array slice.
        slice: u32,
        /// The four values as the format's encoder takes them: integers, or float bits.
        value: [u32; 4],
    },
    /// `CopyResource`: every byte of `src` to `dst` (the same size).
    CopyResource {
        /// Destination.
        dst: Memory,
        /// Source.
        src: Memory,
    },
    /// `CopyBufferRegion`.
    CopyBufferRegion {
        /// Destination.
        dst: Memory,
        /// First destination byte.
        dst_offset: u64,
        /// Source.
        src: Memory,
        /// First source byte.
        src_offset: u64,
        /// Bytes.
        bytes: u64,
    },
    /// `CopyTextureRegion` between two subresources of textures of one texel size.
    CopyTextureRegion(Box<TextureCopy>),
    /// `ExecuteIndirect` of dispatches, draws or indexed draws.
    ExecuteIndirect(Box<Indirect>),
    /// `ResolveSubresource`: mip 0 of slice `src_slice` of a multisampled texture,
    /// averaged into slice `dst_slice` of a single-sampled one (`om::resolve_into`).
    ResolveSubresource {
        /// Destination (single-sampled).
        dst: Texture,
        /// Destination array slice.
        dst_slice: u32,
        /// Source (multisampled).
        src: Texture,
        /// Source array slice.
        src_slice: u32,
    },
    /// `ResolveSubresourceRegion` with `D3D12_RESOLVE_MODE_MIN`, `MAX`, `AVERAGE` or
    /// `DECOMPRESS` (`om::resolve` states the rules).
    ResolveRegion(Box<RegionResolve>),
    /// `BeginQuery`: query `index` of `heap` counts from zero.
    BeginQuery {
        /// The heap.
        heap: QueryHeap,
        /// The query.
        index: u32,
    },
    /// `EndQuery`: query `index` stops counting (a timestamp takes the time).
    EndQuery {
        /// The heap.
        heap: QueryHeap,
        /// The query.
        index: u32,
        /// Its type.
        kind: QueryType,
    },
    /// `ResolveQueryData`.
    ResolveQueryData(Box<Resolve>),
    /// `SetPredication`: the predicate (or none) of the predicated commands after it,
    /// which each carry it ([`Gated`]); running it does nothing.
    SetPredication(Option<Predicate>),
    /// A command run under a predicate or inside queries.
    Gated(Box<Gated>),
    /// D3D11's `DrawAuto` in a list: a draw whose vertex count is a stream-output filled
    /// size divided by vertex buffer 0's stride, read when it runs.
    DrawAuto(Box<DrawAuto>),
    /// `CopyTextureRegion` between a subresource and a buffer placed by a footprint.
    CopyFootprint(Box<FootprintCopy>),
    /// `ClearUnorderedAccessViewUint` of a sampler feedback map: every region of every
    /// subresource back to "no mip requested", whatever values the clear names
    /// (DirectX-Specs "Sampler Feedback": "The four number values … are ignored").
    ClearFeedback(FeedbackMap),
    /// `BuildRaytracingAccelerationStructure`: inputs read from memory when it runs
    /// (`accel_build`).
    BuildAccelerationStructure(Box<super::accel_build::AccelBuild>),
    /// A dispatch or a draw made when the command runs, from memory the commands before
    /// it wrote (a `DispatchRays` whose shader tables are in buffers).
    Late(std::sync::Arc<dyn LateWork>),
    /// `ResolveSubresourceRegion` of a sampler feedback map with
    /// `D3D12_RESOLVE_MODE_DECODE_SAMPLER_FEEDBACK` or `…ENCODE…`: every subresource at
    /// once (`UINT_MAX` subresource indices), or a rectangle of one subresource.
    TranscodeFeedback(Box<Transcode>),
}

/// A command whose work is read from memory when it runs: D3D12 reads a
/// `DispatchRays`'s shader tables when the GPU executes it, so a copy or a dispatch
/// earlier in the list can write them. The job layer implements it (it owns reading a
/// table's records into programs and their bindings).
pub trait LateWork: std::fmt::Debug + Send + Sync {
    /// The command's D3D12 name, as a job file spells it.
    fn name(&self) -> &'static str;
    /// How many program files the job lists for it (see [`Command::program_count`]).
    fn program_count(&self) -> usize;
    /// The work, from memory as it is now; an error says what and where.
    fn make(&self) -> Result<MadeWork, String>;
}

/// A [`LateWork`] made from memory: the work, and for each program it runs (in the
/// work's order) which of the command's listed programs it is (an index below
/// [`LateWork::program_count`]). A `DispatchRays` runs a program once per record that
/// uses it with its own arguments, so the work may run a listed program more than once;
/// the debugger reloads each from the file listed for it.
#[derive(Debug, Clone)]
pub struct MadeWork {
    /// The dispatch or draw.
    pub work: Work,
    /// Per program of `work`, the listed program it is.
    pub sources: Vec<usize>,
}

/// A sampler feedback transcode (DirectX-Specs "Sampler Feedback", "Transcoding"): the
/// map's decoded form (`R8_UINT`, see `resources::feedback`) to or from an `R8_UINT`
/// texture with at least the map's mips, slices and sizes, its data at the top-left
/// corner of each subresource (any padding is right and bottom), or a non-arrayed
/// MinMip map to or from a buffer.
#[derive(Debug, Clone)]
pub struct Transcode {
    /// The feedback map.
    pub map: FeedbackMap,
    /// The decoded form's resource on the other side.
    pub other: TranscodeTarget,
    /// `ENCODE`: `other` into `map`; otherwise `DECODE`: `map` into `other`.
    pub encode: bool,
    /// One subresource's rectangle; `None`: every subresource whole.
    pub part: Option<TranscodePart>,
}

/// The non-opaque side of a [`Transcode`].
#[derive(Debug, Clone)]
pub enum TranscodeTarget {
    /// An `R8_UINT` texture.
    Texture(Texture),
    /// A buffer holding a MinMip map's one subresource: row after row of one byte per
    /// region, no padding between rows, from byte 0 ("Additional semantics for encoding
    /// and decoding MinMip feedback maps"; padding is at the end).
    Buffer(Memory),
}

/// A `ResolveSubresourceRegion` of a multisample mode: the resources and what moves
/// between them (checked when the command was made).
#[derive(Debug, Clone)]
pub struct RegionResolve {
    /// The destination.
    pub dst: Texture,
    /// The source.
    pub src: Texture,
    /// The mode, subresources, rectangle, offset and plane.
    pub region: om::resolve::ResolveRegion,
}

/// The one-subresource form of a [`Transcode`] (`ResolveSubresourceRegion` with
/// subresource indices and `pSrcRect`, `DstX`, `DstY`), in decoded texels: one texel per
/// mip region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranscodePart {
    /// The source subresource (the map's when decoding): mip and array slice.
    pub src: [u32; 2],
    /// The destination subresource: mip and array slice.
    pub dst: [u32; 2],
    /// The source rectangle `[left, top, right, bottom]`, inside the source subresource.
    pub src_rect: [u32; 4],
    /// Where the rectangle's top-left lands in the destination subresource.
    pub dst_at: [u32; 2],
}

/// `D3D12_PLACED_SUBRESOURCE_FOOTPRINT`: where a subresource's texels lie in a buffer.
/// Texel (or block) `(x, y, z)` is at `offset + (z × rows + y) × row_pitch + x × bytes`,
/// `rows` being the height in rows of blocks (`D3D12_SUBRESOURCE_FOOTPRINT`: slices
/// follow one another at `rows × RowPitch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// `Offset` (a multiple of 512).
    pub offset: u64,
    /// `Width`, texels.
    pub width: u32,
    /// `Height`, texels.
    pub height: u32,
    /// `Depth`.
    pub depth: u32,
    /// `RowPitch` (a multiple of 256).
    pub row_pitch: u32,
}

/// A `CopyTextureRegion` with one side a placed footprint: `src_box` of the source
/// (texture or footprint) to `dst_at` of the destination, rows of texels (or blocks)
/// unchanged. Checked before the list runs: alignment, formats, the footprint inside
/// the buffer, the box inside both sides.
#[derive(Debug, Clone)]
pub struct FootprintCopy {
    /// The texture.
    pub texture: Texture,
    /// Its mip.
    pub mip: u32,
    /// Its array slice.
    pub slice: u32,
    /// The buffer.
    pub buffer: Memory,
    /// The buffer's layout.
    pub footprint: Footprint,
    /// Buffer to texture (`true`) or texture to buffer.
    pub to_texture: bool,
    /// The source box, `[left, top, front, right, bottom, back]`.
    pub src_box: [u32; 6],
    /// The destination point.
    pub dst_at: [u32; 3],
}

/// A `DrawAuto`: [`DrawWork`] drawn with one instance of `⌊filled size / stride⌋`
/// vertices from vertex 0 (`ID3D11DeviceContext::DrawAuto`: the count comes from the
/// filled size the stream-output stage left in the buffer bound at input slot 0, and
/// that slot's stride).
/// D3D12 has no `DrawAuto`: its filled size lies in an application buffer
/// (`D3D12_STREAM_OUTPUT_BUFFER_VIEW::BufferFilledSizeLocation`), so this reads the same
/// word D3D12 would have turned into an indirect draw's vertex count.
#[derive(Debug, Clone)]
pub struct DrawAuto {
    /// The draw, its arguments replaced when it runs.
    pub work: DrawWork,
    /// The buffer holding the 32-bit filled size.
    pub filled: Memory,
    /// Its byte offset.
    pub offset: u64,
    /// Vertex buffer 0's stride (non-zero: checked).
    pub stride: u32,
}

impl DrawAuto {
    /// The arguments the filled size gives now: one instance of `⌊filled size /
    /// stride⌋` vertices from vertex 0.
    pub fn args(&self) -> DrawArgs {
        DrawArgs {
            vertex_count: word(&self.filled, self.offset) / self.stride.max(1),
            instance_count: 1,
            ..DrawArgs::default()
        }
    }

    /// The draw as it would run now (the filled size read from the buffer as it is),
    /// for the debugger, which opens an event after running the commands before it.
    pub fn resolved(&self) -> DrawWork {
        DrawWork {
            args: self.args(),
            ..self.work.clone()
        }
    }
}

/// A command that runs under a predicate (skipped when the predicate says so) or
/// inside queries (which count what it runs): which ones is known from the list's
/// order, so each command carries them.
#[derive(Debug, Clone)]
pub struct Gated {
    /// The command.
    pub command: Command,
    /// The predicate `SetPredication` set before it, when the command is predicated.
    pub predicate: Option<Predicate>,
    /// The queries begun and not yet ended before it.
    pub queries: Vec<ActiveQuery>,
}

/// A `CopyTextureRegion` between subresources: the box `src_box` (`[left, top, front]`
/// to `[right, bottom, back]`, exclusive) of (`src_mip`, `src_slice`) to `dst_at` of
/// (`dst_mip`, `dst_slice`). Checked before the list runs: both textures have one texel
/// size and the box fits both.
#[derive(Debug, Clone)]
pub struct TextureCopy {
    /// Destination.
    pub dst: Texture,
    /// Destination mip.
    pub dst_mip: u32,
    /// Destination array slice.
    pub dst_slice: u32,
    /// Destination `[x, y, z]`.
    pub dst_at: [u32; 3],
    /// Source.
    pub src: Texture,
    /// Source mip.
    pub src_mip: u32,
    /// Source array slice.
    pub src_slice: u32,
    /// Source box: `[left, top, front, right, bottom, back]`.
    pub src_box: [u32; 6],
}

/// What an `ExecuteIndirect` runs for each argument record.
#[derive(Debug, Clone)]
// One per `ExecuteIndirect` command; held inline as `Command::Work` holds its work.
#[allow(clippy::large_enum_variant)]
pub enum IndirectWork {
    /// `D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH`: the work's `groups` are replaced.
    Dispatch(DispatchWork),
    /// `D3D12_INDIRECT_ARGUMENT_TYPE_DRAW`: the work's `args` are replaced.
    Draw(Box<DrawWork>),
    /// `D3D12_INDIRECT_ARGUMENT_TYPE_DRAW_INDEXED`: the work's `args` are replaced.
    DrawIndexed(Box<DrawWork>),
    /// `D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH_MESH`: a mesh draw whose `DispatchMesh`
    /// groups are replaced.
    DispatchMesh(Box<DrawWork>),
}

impl IndirectWork {
    /// Bytes of one argument record.
    pub fn argument_bytes(&self) -> u64 {
        match self {
            IndirectWork::Dispatch(_) | IndirectWork::DispatchMesh(_) => 12,
            IndirectWork::Draw(_) => 16,
            IndirectWork::DrawIndexed(_) => 20,
        }
    }
}

/// An `ExecuteIndirect`.
#[derive(Debug, Clone)]
pub struct Indirect {
    /// The work each record runs.
    pub work: IndirectWork,
    /// The argument buffer.
    pub arguments: Memory,
    /// `ArgumentBufferOffset`.
    pub offset: u64,
    /// The command signature's `ByteStride`.
    pub stride: u64,
    /// `MaxCommandCount`.
    pub max_count: u32,
    /// The count buffer and `CountBufferOffset`.
    pub count: Option<(Memory, u64)>,
}

/// What one command did.
#[derive(Debug, Clone)]
pub struct CommandReport {
    /// The command's name as a job file spells it.
    pub command: &'static str,
    /// The dispatches and draws it ran (an `ExecuteIndirect`: one per record run).
    pub runs: Vec<WorkReport>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// A `ResolveQueryData`'s values, one per query.
    pub queries: Vec<ResolvedQuery>,
    /// The command was predicated off and did nothing.
    pub skipped: bool,
}

impl CommandReport {
    /// The stream-output statistics of the command's draws, per stream, summed (`None`
    /// when none of them had stream output).
    pub fn stream_output(&self) -> Option<[super::so::SoStatistics; 4]> {
        let mut out: Option<[super::so::SoStatistics; 4]> = None;
        for r in &self.runs {
            if let WorkReport::Draw(d) = r
                && let Some(s) = d.stream_output
            {
                let o = out.get_or_insert_default();
                for (a, b) in o.iter_mut().zip(s) {
                    a.primitives_written += b.primitives_written;
                    a.primitives_storage_needed += b.primitives_storage_needed;
                }
            }
        }
        out
    }

    /// Lane-instructions of every dispatch and draw the command ran.
    pub fn lane_instructions(&self) -> u64 {
        self.runs
            .iter()
            .map(|r| match r {
                WorkReport::Dispatch(d) => d.lane_instructions,
                // Every stage's lanes: a tessellated, geometry or mesh draw's hull,
                // domain, geometry, amplification and mesh lanes count as its vertex and
                // pixel lanes do.
                WorkReport::Draw(d) => {
                    d.vs_lane_instructions
                        + d.ps_lane_instructions
                        + d.gs_lane_instructions
                        + d.hs_lane_instructions
                        + d.ds_lane_instructions
                        + d.as_lane_instructions
                        + d.ms_lane_instructions
                }
                WorkReport::List(l) => l.commands.iter().map(|c| c.lane_instructions()).sum(),
                WorkReport::Rays(r) => r.rays.lane_instructions,
            })
            .sum()
    }

    /// Pixels shaded by the command's draws.
    pub fn pixels_shaded(&self) -> u64 {
        self.runs
            .iter()
            .map(|r| match r {
                WorkReport::Draw(d) => d.pixels_shaded,
                _ => 0,
            })
            .sum()
    }
}

/// What running a list did: one report per command, in order.
#[derive(Debug, Clone, Default)]
pub struct ListReport {
    /// Per command.
    pub commands: Vec<CommandReport>,
}

/// Bytes a copy moves at a time: no copy of a whole resource is held.
const COPY_CHUNK: u64 = 1 << 20;

/// Copies `bytes` bytes of `src` from `so` to `dst` at `d`, a chunk at a time.
fn copy(dst: &Memory, d: u64, src: &Memory, so: u64, bytes: u64) {
    let mut buf = vec![0u8; bytes.min(COPY_CHUNK) as usize];
    let mut done = 0;
    while done < bytes {
        let n = (bytes - done).min(COPY_CHUNK) as usize;
        let b = &mut buf[..n];
        src.read_bytes(so + done, b);
        dst.write_bytes(d + done, b);
        done += n as u64;
    }
}

/// Writes `texel` to every texel and sample of subresource (`mip`, `slice`) of `t`.
///
/// The texel is encoded once by the caller; each row of the subresource, whose texels
/// lie side by side in memory, is then written in one piece from a row of copies (a
/// 1920×1080 clear was two million one-texel writes, each finding its own address).
/// A row whose texels are not side by side (a block-compressed format) is written a
/// texel at a time.
fn fill_subresource(t: &Texture, mip: u32, slice: u32, texel: &[u8]) {
    let d = *t.desc();
    let [w, h, depth] = d.mip_size(mip);
    let n = texel.len();
    if w == 0 || n == 0 {
        return;
    }
    // One row of copies of the texel (`w` is at most the texture's width, whose bytes
    // the texture's memory already holds).
    let mut row = Vec::new();
    if row.try_reserve_exact(w as usize * n).is_ok() {
        for _ in 0..w {
            row.extend_from_slice(texel);
        }
    }
    let mem = t.memory();
    for s in 0..d.samples.max(1) {
        for z in 0..depth {
            for y in 0..h {
                let first = t.texel_addr(mip, slice, [0, y, z], s);
                let last = t.texel_addr(mip, slice, [w - 1, y, z], s);
                match (first, last) {
                    (Some(a), Some(b))
                        if row.len() == w as usize * n
                            && b.checked_sub(a) == Some(u64::from(w - 1) * n as u64) =>
                    {
                        mem.write_bytes(a, &row);
                    }
                    _ => {
                        for x in 0..w {
                            if let Some(a) = t.texel_addr(mip, slice, [x, y, z], s) {
                                mem.write_bytes(a, texel);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The four values a `ClearRenderTargetView` of `format` encodes: float bits for every
/// format but the integer ones, which take each value as an integer saturated to the
/// 32-bit range of its sign (the format's encoder then narrows it).
pub fn clear_color_values(format: Format, color: [f32; 4]) -> [u32; 4] {
    let integer = om::target_class(format) == Some(om::TargetClass::Integer);
    let signed = format.channel_type() == ChannelType::SInt;
    color.map(|c| {
        if !integer {
            c.to_bits()
        } else if signed {
            // `as` saturates and takes NaN to 0.
            c as i32 as u32
        } else {
            c as u32
        }
    })
}

/// The bytes of one texel of `format` holding `color` as a render-target clear writes it.
pub fn clear_color_texel(format: Format, color: [f32; 4]) -> Vec<u8> {
    let mut t = vec![0u8; format.bytes_per_texel() as usize];
    format.encode(clear_color_values(format, color), 0xf, &mut t);
    t
}

/// Reads the little-endian word at byte `at` of `m` (0 past its end, as the caller has
/// checked the range).
fn word(m: &Memory, at: u64) -> u32 {
    let mut b = [0u8; 4];
    m.read_bytes(at, &mut b);
    u32::from_le_bytes(b)
}

fn list_err(m: String) -> DrawError {
    DrawError::Exec(ExecError::Dispatch(m))
}

impl Command {
    /// The command's D3D12 name, as a job file spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Work(Work::Dispatch(_)) => "dispatch",
            Command::Work(Work::Draw(d)) if d.mesh.is_some() => "dispatch_mesh",
            Command::Work(Work::Draw(d)) if d.indexed() => "draw_indexed",
            Command::Work(Work::Draw(_)) => "draw",
            Command::Work(Work::List(_)) => "command list",
            Command::Work(Work::Rays(_)) => "dispatch_rays",
            Command::ClearRenderTarget { .. } => "clear_render_target",
            Command::ClearDepthStencil { .. } => "clear_depth_stencil",
            Command::ClearBufferWords { .. }
            | Command::ClearTypedBuffer { .. }
            | Command::ClearTexture { .. } => "clear_unordered_access",
            Command::CopyResource { .. } => "copy_resource",
            Command::CopyBufferRegion { .. } => "copy_buffer_region",
            Command::CopyTextureRegion(_) => "copy_texture_region",
            Command::ExecuteIndirect(_) => "execute_indirect",
            Command::ResolveSubresource { .. } | Command::ResolveRegion(_) => "resolve_subresource",
            Command::BeginQuery { .. } => "begin_query",
            Command::EndQuery { .. } => "end_query",
            Command::ResolveQueryData(_) => "resolve_query_data",
            Command::SetPredication(_) => "set_predication",
            Command::Gated(g) => g.command.name(),
            Command::DrawAuto(_) => "draw",
            Command::CopyFootprint(_) => "copy_texture_region",
            Command::ClearFeedback(_) => "clear_unordered_access",
            Command::TranscodeFeedback(_) => "resolve_subresource",
            Command::BuildAccelerationStructure(_) => "build_raytracing_acceleration_structure",
            Command::Late(l) => l.name(),
        }
    }

    /// The command itself, under any predicate or queries it carries.
    pub fn inner(&self) -> &Command {
        match self {
            Command::Gated(g) => g.command.inner(),
            c => c,
        }
    }

    /// Whether a predicate set before it skips it now (read when asked: the value may
    /// be written by the commands before it).
    pub fn predicated_off(&self) -> bool {
        match self {
            Command::Gated(g) => g.predicate.as_ref().is_some_and(|p| !p.passes()),
            _ => false,
        }
    }

    /// The values a `ResolveQueryData` wrote, one per query (none for other commands).
    pub fn resolved_queries(&self) -> Vec<ResolvedQuery> {
        match self.inner() {
            Command::ResolveQueryData(r) => r.values(),
            _ => Vec::new(),
        }
    }

    /// Threads per group of the compute program the command dispatches (0 when it
    /// dispatches none): what `CSInvocations` counts per group.
    fn threads_per_group(&self) -> u64 {
        let group = |d: &DispatchWork| {
            d.shader
                .thread_group
                .iter()
                .map(|&t| u64::from(t))
                .product()
        };
        match self.inner() {
            Command::Work(Work::Dispatch(d)) => group(d),
            Command::ExecuteIndirect(x) => match &x.work {
                IndirectWork::Dispatch(d) => group(d),
                _ => 0,
            },
            _ => 0,
        }
    }

    /// How many programs the command runs, counted as a job lists their files: a
    /// dispatch's compute program; a draw's vertex (or mesh) program and each pixel,
    /// geometry, hull, domain and amplification program it has (the job decides their
    /// order; only the count is used); an `ExecuteIndirect`'s, by what each record runs.
    pub fn program_count(&self) -> usize {
        let draw = |d: &DrawWork| {
            1 + usize::from(d.ps.is_some())
                + usize::from(d.gs.is_some())
                + usize::from(d.hs.is_some())
                + usize::from(d.ds.is_some())
                + usize::from(d.mesh.as_ref().is_some_and(|m| m.amplification.is_some()))
        };
        match self {
            Command::Work(Work::Dispatch(_)) => 1,
            Command::Work(Work::Draw(d)) => draw(d),
            Command::Work(Work::List(l)) => l.iter().map(Command::program_count).sum(),
            Command::Work(Work::Rays(r)) => r.programs.len(),
            Command::ExecuteIndirect(x) => match &x.work {
                IndirectWork::Dispatch(_) => 1,
                IndirectWork::Draw(d)
                | IndirectWork::DrawIndexed(d)
                | IndirectWork::DispatchMesh(d) => draw(d),
            },
            Command::Gated(g) => g.command.program_count(),
            Command::DrawAuto(x) => draw(&x.work),
            Command::Late(l) => l.program_count(),
            _ => 0,
        }
    }

    /// The dispatch or draw the command is, when it is one.
    pub fn work(&self) -> Option<&Work> {
        match self.inner() {
            Command::Work(w) => Some(w),
            _ => None,
        }
    }

    /// The work the command would run now: [`Command::work`], or for a command made
    /// when it runs (a `dispatch_rays` whose shader tables are in buffers) the work made
    /// from memory as the commands before it left it, which is what running it now
    /// would run. `Ok(None)`: the command runs no program, or a predicate skips a
    /// command made when it runs (a skipped command reads no table). An error is the
    /// one running it would give.
    pub fn work_now(&self) -> Result<Option<std::borrow::Cow<'_, Work>>, String> {
        match self.inner() {
            Command::Late(l) if !self.predicated_off() => {
                l.make().map(|m| Some(std::borrow::Cow::Owned(m.work)))
            }
            Command::Work(w) => Ok(Some(std::borrow::Cow::Borrowed(w))),
            _ => Ok(None),
        }
    }

    /// The command made when it runs, when it is one (under any predicate).
    pub fn late(&self) -> Option<&dyn LateWork> {
        match self.inner() {
            Command::Late(l) => Some(l.as_ref()),
            _ => None,
        }
    }

    /// Runs the command under `plan`, charging `budget`; `hooks` watch a dispatch or a
    /// draw.
    pub fn run<'a>(
        &self,
        plan: &Plan,
        budget: &'a RunBudget,
        hooks: Hooks<'a>,
    ) -> Result<Vec<WorkReport>, DrawError> {
        let mut runs = Vec::new();
        match self {
            Command::Work(w) => {
                let hooks = Hooks {
                    budget: Some(budget),
                    ..hooks
                };
                // One report, in a block of its size: a list keeps every command's
                // report to its end, so room for more would stay taken.
                runs = vec![w.run(plan, hooks)?];
            }
            Command::ClearRenderTarget {
                texture,
                mip,
                slice,
                color,
            } => {
                let texel = clear_color_texel(texture.desc().format, *color);
                fill_subresource(texture, *mip, *slice, &texel);
            }
            Command::ClearDepthStencil {
                texture,
                mip,
                slice,
                depth,
                stencil,
            } => clear_depth_stencil(texture, *mip, *slice, *depth, *stencil),
            Command::ClearBufferWords {
                memory,
                first,
                count,
                value,
            } => {
                let bytes = value.to_le_bytes();
                for i in 0..*count {
                    memory.write_bytes((first + i) * 4, &bytes);
                }
            }
            Command::ClearTypedBuffer {
                memory,
                format,
                first,
                count,
                value,
            } => {
                let n = u64::from(format.bytes_per_texel());
                let mut texel = vec![0u8; n as usize];
                format.encode(*value, 0xf, &mut texel);
                for i in 0..*count {
                    memory.write_bytes((first + i) * n, &texel);
                }
            }
            Command::ClearTexture {
                texture,
                mip,
                slice,
                value,
            } => {
                let format = texture.desc().format;
                let mut texel = vec![0u8; format.bytes_per_texel() as usize];
                format.encode(*value, 0xf, &mut texel);
                fill_subresource(texture, *mip, *slice, &texel);
            }
            Command::CopyResource { dst, src } => copy(dst, 0, src, 0, src.len().min(dst.len())),
            Command::CopyBufferRegion {
                dst,
                dst_offset,
                src,
                src_offset,
                bytes,
            } => copy(dst, *dst_offset, src, *src_offset, *bytes),
            Command::CopyTextureRegion(c) => copy_texture_region(c),
            Command::CopyFootprint(c) => copy_footprint(c),
            Command::ClearFeedback(map) => map.clear(),
            Command::TranscodeFeedback(t) => transcode(t),
            Command::BuildAccelerationStructure(b) => {
                b.run().map_err(list_err)?;
            }
            Command::Late(l) => {
                let made = l.make().map_err(list_err)?;
                let hooks = Hooks {
                    budget: Some(budget),
                    ..hooks
                };
                runs.push(made.work.run(plan, hooks)?);
            }
            Command::ExecuteIndirect(x) => runs = execute_indirect(x, plan, budget, hooks)?,
            Command::ResolveSubresource {
                dst,
                dst_slice,
                src,
                src_slice,
            } => om::resolve_into(src, *src_slice, dst, *dst_slice),
            Command::ResolveRegion(r) => om::resolve::resolve_region(&r.src, &r.dst, &r.region),
            Command::BeginQuery { heap, index } => heap.begin(*index),
            Command::EndQuery { heap, index, kind } => {
                if *kind == QueryType::Timestamp {
                    heap.stamp(*index);
                }
            }
            Command::ResolveQueryData(r) => r.run(),
            Command::SetPredication(_) => {}
            Command::DrawAuto(x) => {
                let args = x.args();
                let opts = DrawOptions {
                    trace: None,
                    ..hooks.draw_options(plan)
                };
                let r = draw_charged(&x.work.state(), &args, &opts, budget)?;
                runs.push(WorkReport::Draw(Box::new(r)));
            }
            Command::Gated(g) => {
                if self.predicated_off() {
                    return Ok(runs);
                }
                runs = g.command.run(plan, budget, hooks)?;
                let per_group = g.command.threads_per_group();
                for q in &g.queries {
                    q.heap.add(q.index, &runs, per_group);
                }
            }
        }
        budget
            .check()
            .map_err(|spent| DrawError::Exec(budget.error(spent, 0, 0, "commands")))?;
        Ok(runs)
    }
}

/// `ClearDepthStencilView`: each texel keeps what the flags leave alone.
fn clear_depth_stencil(t: &Texture, mip: u32, slice: u32, depth: Option<f32>, stencil: Option<u8>) {
    let format = t.desc().format;
    let kind = om::depth_kind(format).unwrap_or(om::DepthKind::Float);
    let d = *t.desc();
    let mut texel = vec![0u8; format.bytes_per_texel() as usize];
    let [w, h, _] = d.mip_size(mip);
    for s in 0..d.samples.max(1) {
        for y in 0..h {
            for x in 0..w {
                let Some(a) = t.texel_addr(mip, slice, [x, y, 0], s) else {
                    continue;
                };
                t.memory().read_bytes(a, &mut texel);
                let (old_d, old_s) = om::TileDepth::decode(format, &texel);
                // NaN clamps to 0 (`f32::clamp` keeps NaN: handle it first).
                let z = depth.map_or(old_d, |z| {
                    let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
                    om::depth_code(kind, z)
                });
                om::TileDepth::encode(format, z, stencil.unwrap_or(old_s), &mut texel);
                t.memory().write_bytes(a, &texel);
            }
        }
    }
}

/// `CopyTextureRegion`, a row of texels (or of blocks) at a time.
fn copy_texture_region(c: &TextureCopy) {
    let f = c.src.desc().format;
    let block = f.block_size().max(1);
    let texel = u64::from(f.bytes_per_texel());
    let [l, t, fr, r, b, bk] = c.src_box;
    let row_texels = r.saturating_sub(l).div_ceil(block);
    let mut row = vec![0u8; (u64::from(row_texels) * texel) as usize];
    let samples = c.src.desc().samples.max(1);
    for s in 0..samples {
        for z in fr..bk {
            let mut y = t;
            while y < b {
                let dz = c.dst_at[2] + (z - fr);
                let dy = c.dst_at[1] + (y - t);
                if let (Some(sa), Some(da)) = (
                    c.src.texel_addr(c.src_mip, c.src_slice, [l, y, z], s),
                    c.dst
                        .texel_addr(c.dst_mip, c.dst_slice, [c.dst_at[0], dy, dz], s),
                ) {
                    // Rows are contiguous within a subresource.
                    c.src.memory().read_bytes(sa, &mut row);
                    c.dst.memory().write_bytes(da, &row);
                }
                y += block;
            }
        }
    }
}

/// Runs a [`Transcode`], a row of a subresource at a time. Encoding a MipRegionUsed map
/// stores any value but 0 as requested (`0xFF`): "encoding values of 0x0 is taken to
/// mean 'no feedback is requested'", so every other value is a request, and the decoded
/// form holds only `0xFF` or 0. A MinMip map takes the values as they are (the most
/// precise of the encodings the spec allows: it keeps encode-then-decode exact, which
/// the spec guarantees only for MipRegionUsed). A [`TranscodePart`] moves the rows of
/// its rectangle only; a buffer holds the map's rows packed (the job checked the sizes,
/// so every address is inside its resource).
fn transcode(t: &Transcode) {
    let map = &t.map.map;
    let d = *map.desc();
    let used = t.map.kind == FeedbackKind::MipRegionUsed;
    let encoded = |row: &mut [u8]| {
        if used {
            for b in row {
                if *b != 0 {
                    *b = NOT_REQUESTED;
                }
            }
        }
    };
    let texture = match &t.other {
        TranscodeTarget::Texture(texture) => texture,
        TranscodeTarget::Buffer(memory) => {
            // A non-arrayed MinMip map: its one subresource, rows packed.
            let [w, h, _] = d.mip_size(0);
            let mut row = vec![0u8; w as usize];
            for y in 0..h {
                let Some(ma) = map.texel_addr(0, 0, [0, y, 0], 0) else {
                    continue;
                };
                let at = u64::from(y) * u64::from(w);
                if t.encode {
                    memory.read_bytes(at, &mut row);
                    map.memory().write_bytes(ma, &row);
                } else {
                    map.memory().read_bytes(ma, &mut row);
                    memory.write_bytes(at, &row);
                }
            }
            return;
        }
    };
    if let Some(p) = t.part {
        let (src, dst) = if t.encode {
            (texture, map)
        } else {
            (map, texture)
        };
        let [l, top, r, bottom] = p.src_rect;
        let mut row = vec![0u8; r.saturating_sub(l) as usize];
        for y in top..bottom {
            let dy = p.dst_at[1] + (y - top);
            let (Some(sa), Some(da)) = (
                src.texel_addr(p.src[0], p.src[1], [l, y, 0], 0),
                dst.texel_addr(p.dst[0], p.dst[1], [p.dst_at[0], dy, 0], 0),
            ) else {
                continue;
            };
            src.memory().read_bytes(sa, &mut row);
            if t.encode {
                encoded(&mut row);
            }
            dst.memory().write_bytes(da, &row);
        }
        return;
    }
    for mip in 0..d.mips {
        let [w, h, _] = d.mip_size(mip);
        let mut row = vec![0u8; w as usize];
        for slice in 0..d.depth_or_array_size.max(1) {
            for y in 0..h {
                let (Some(ma), Some(ta)) = (
                    map.texel_addr(mip, slice, [0, y, 0], 0),
                    texture.texel_addr(mip, slice, [0, y, 0], 0),
                ) else {
                    continue;
                };
                if t.encode {
                    texture.memory().read_bytes(ta, &mut row);
                    encoded(&mut row);
                    map.memory().write_bytes(ma, &row);
                } else {
                    map.memory().read_bytes(ma, &mut row);
                    texture.memory().write_bytes(ta, &row);
                }
            }
        }
    }
}

/// `CopyTextureRegion` with a placed footprint, a row of texels (or blocks) at a time.
fn copy_footprint(c: &FootprintCopy) {
    let f = c.texture.desc().format;
    let block = f.block_size().max(1);
    let texel = u64::from(f.bytes_per_texel());
    let [l, t, fr, r, b, bk] = c.src_box;
    let mut row = vec![0u8; (u64::from(r.saturating_sub(l).div_ceil(block)) * texel) as usize];
    let fp = c.footprint;
    let rows = u64::from(fp.height.div_ceil(block));
    let in_buffer = |[x, y, z]: [u32; 3]| {
        fp.offset
            + (u64::from(z) * rows + u64::from(y / block)) * u64::from(fp.row_pitch)
            + u64::from(x / block) * texel
    };
    for z in fr..bk {
        let mut y = t;
        while y < b {
            let src = [l, y, z];
            let dst = [c.dst_at[0], c.dst_at[1] + (y - t), c.dst_at[2] + (z - fr)];
            if c.to_texture {
                if let Some(a) = c.texture.texel_addr(c.mip, c.slice, dst, 0) {
                    c.buffer.read_bytes(in_buffer(src), &mut row);
                    c.texture.memory().write_bytes(a, &row);
                }
            } else if let Some(a) = c.texture.texel_addr(c.mip, c.slice, src, 0) {
                c.texture.memory().read_bytes(a, &mut row);
                c.buffer.write_bytes(in_buffer(dst), &row);
            }
            y += block;
        }
    }
}

/// Runs every record of an `ExecuteIndirect` (see the module doc).
fn execute_indirect<'a>(
    x: &Indirect,
    plan: &Plan,
    budget: &'a RunBudget,
    hooks: Hooks<'a>,
) -> Result<Vec<WorkReport>, DrawError> {
    let count = match &x.count {
        Some((m, at)) => word(m, *at).min(x.max_count),
        None => x.max_count,
    };
    let size = x.work.argument_bytes();
    let mut runs = Vec::new();
    for i in 0..u64::from(count) {
        let at = x.offset + i * x.stride;
        // Checked when the list was made for `max_count` records; kept as a guard.
        if at + size > x.arguments.len() {
            return Err(list_err(format!(
                "record {i}: the argument buffer's {} bytes end before byte {}",
                x.arguments.len(),
                at + size
            )));
        }
        let a = |k: u64| word(&x.arguments, at + 4 * k);
        match &x.work {
            IndirectWork::Dispatch(d) => {
                let groups = [a(0), a(1), a(2)];
                if groups.contains(&0) {
                    continue;
                }
                if let Some(k) = groups.iter().position(|g| *g > MAX_GROUPS_PER_DIMENSION) {
                    return Err(list_err(format!(
                        "record {i}: ThreadGroupCount{} {} is past D3D12's {MAX_GROUPS_PER_DIMENSION}",
                        ["X", "Y", "Z"][k],
                        groups[k]
                    )));
                }
                let r = dispatch_with(
                    &d.shader,
                    &d.bindings,
                    groups,
                    plan,
                    hooks.progress,
                    DispatchHooks {
                        writes: hooks.writes,
                        observe: None,
                        budget: Some(budget),
                    },
                )
                .map_err(DrawError::Exec)?;
                runs.push(WorkReport::Dispatch(r));
            }
            IndirectWork::Draw(d) | IndirectWork::DrawIndexed(d) => {
                let args = match &x.work {
                    IndirectWork::Draw(_) => DrawArgs {
                        vertex_count: a(0),
                        instance_count: a(1),
                        start_vertex: a(2),
                        base_vertex: 0,
                        start_instance: a(3),
                    },
                    _ => DrawArgs {
                        vertex_count: a(0),
                        instance_count: a(1),
                        start_vertex: a(2),
                        base_vertex: a(3) as i32,
                        start_instance: a(4),
                    },
                };
                let opts = DrawOptions {
                    trace: None,
                    ..hooks.draw_options(plan)
                };
                let r = draw_charged(&d.state(), &args, &opts, budget)?;
                runs.push(WorkReport::Draw(Box::new(r)));
            }
            IndirectWork::DispatchMesh(d) => {
                let groups = [a(0), a(1), a(2)];
                // The grid limits of the DispatchMesh API hold for each record; a record
                // past them is an error naming it, as a dispatch record past its limit is.
                super::amplification::check_grid(
                    groups,
                    &format!("record {i} (ThreadGroupCountX, Y, Z = {groups:?})"),
                )
                .map_err(DrawError::Exec)?;
                let mut state = d.state();
                if let Some(m) = state.mesh.as_mut() {
                    m.groups = groups;
                }
                let opts = DrawOptions {
                    trace: None,
                    ..hooks.draw_options(plan)
                };
                let r = draw_charged(&state, &d.args, &opts, budget)?;
                runs.push(WorkReport::Draw(Box::new(r)));
            }
        }
    }
    Ok(runs)
}

/// Runs `commands` in order under `plan`, every command charging one budget; stops at the
/// first failure, naming the command (`[[command]] #N`, 1-based, and its kind).
pub fn run_list(
    commands: &[Command],
    plan: &Plan,
    budget: Option<&RunBudget>,
) -> Result<ListReport, DrawError> {
    let own;
    let budget = match budget {
        Some(b) => b,
        None => {
            own = RunBudget::new(&plan.limits);
            &own
        }
    };
    let mut report = ListReport::default();
    report.commands.reserve_exact(commands.len());
    // The list's draws share their prepared programs, waves and small tile lists.
    let pso = PsoCache::new();
    for (i, c) in commands.iter().enumerate() {
        let t0 = Instant::now();
        let skipped = c.predicated_off();
        let hooks = Hooks {
            pso: Some(&pso),
            ..Hooks::default()
        };
        let runs = c
            .run(plan, budget, hooks)
            .map_err(|e| command_error(i, c, e))?;
        report.commands.push(CommandReport {
            command: c.name(),
            skipped,
            runs,
            seconds: t0.elapsed().as_secs_f64(),
            queries: c.resolved_queries(),
        });
    }
    Ok(report)
}

/// `e` as the failure of command `i` (0-based) of a list.
pub fn command_error(i: usize, c: &Command, e: DrawError) -> DrawError {
    match e {
        DrawError::Exec(x) => list_err(format!("[[command]] #{} ({}): {x}", i + 1, c.name())),
        // Stream-output messages name their entry, stride or buffer through the field.
        DrawError::State {
            field: field @ super::draw::DrawField::StreamOutput(_),
            message,
        } => list_err(format!(
            "[[command]] #{} ({}): {}: {message}",
            i + 1,
            c.name(),
            super::draw::field_name(field)
        )),
        other => list_err(format!("[[command]] #{} ({}): {other}", i + 1, c.name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{TextureDesc, TextureDim};

    fn tex(format: Format, w: u32, h: u32, samples: u32) -> Texture {
        let mut d = TextureDesc::tex2d(format, w, h);
        d.samples = samples;
        if samples > 1 {
            d.dim = TextureDim::Tex2DMS;
        }
        Texture::new(d).unwrap()
    }

    fn run(c: &Command) -> Vec<WorkReport> {
        c.run(
            &Plan::default(),
            &RunBudget::new(&Plan::default().limits),
            Hooks::default(),
        )
        .unwrap()
    }

    /// ClearRenderTargetView writes every sample; UNORM takes the colour as a pixel
    /// output is converted (round to nearest), integer formats take integers.
    #[test]
    fn clear_render_target_converts_like_a_pixel_output() {
        let t = tex(Format::R8G8B8A8_UNORM, 3, 2, 4);
        run(&Command::ClearRenderTarget {
            texture: t.clone(),
            mip: 0,
            slice: 0,
            color: [1.0, 0.5, 0.0, 2.0],
        });
        let b = t.to_bytes();
        assert_eq!(b.len(), 3 * 2 * 4 * 4);
        assert!(b.chunks(4).all(|c| c == [255, 128, 0, 255]), "{b:?}");
        let u = clear_color_values(Format::R32G32B32A32_SINT, [-3.7, 1e20, f32::NAN, 5.0]);
        assert_eq!(u, [-3i32 as u32, i32::MAX as u32, 0, 5]);
    }

    /// A render-target view names one mip of an array slice, and
    /// `ClearRenderTargetView` fills the whole view (D3D12 "ClearRenderTargetView": every
    /// texel the view covers): mip 1 of slice 1 of a 2-mip, 3-slice array of 5 × 3
    /// texels gets the colour's texel at each of its 2 × 1 texels, and every other
    /// subresource keeps its bytes. The colour converts as a pixel output does: 1.0 →
    /// 255, 0.5 → 128 (round to nearest), 0.0 → 0, 2.0 saturates to 255.
    #[test]
    fn clear_render_target_fills_its_subresource_and_nothing_else() {
        let mut d = TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 5, 3);
        d.dim = TextureDim::Tex2DArray;
        d.depth_or_array_size = 3;
        d.mips = 2;
        let t = Texture::new(d).unwrap();
        t.memory().fill_words(0x0102_0304);
        let before = t.to_bytes();
        run(&Command::ClearRenderTarget {
            texture: t.clone(),
            mip: 1,
            slice: 1,
            color: [1.0, 0.5, 0.0, 2.0],
        });
        let after = t.to_bytes();
        let at = t.subresource_offset(1, 1).unwrap() as usize;
        // Mip 1 of a 5 × 3 texture is 2 × 1 texels of 4 bytes.
        let cleared = at..at + 2 * 4;
        for (i, (a, b)) in before.iter().zip(&after).enumerate() {
            if cleared.contains(&i) {
                assert_eq!(*b, [255, 128, 0, 255][(i - at) % 4], "byte {i}");
            } else {
                assert_eq!(a, b, "byte {i} is outside the view");
            }
        }
    }

    /// ClearDepthStencilView with only the stencil flag leaves depth; depth is clamped
    /// to [0, 1].
    #[test]
    fn clear_depth_stencil_follows_its_flags() {
        let t = tex(Format::D32_FLOAT_S8X24_UINT, 2, 2, 1);
        let clear = |depth, stencil| {
            run(&Command::ClearDepthStencil {
                texture: t.clone(),
                mip: 0,
                slice: 0,
                depth,
                stencil,
            })
        };
        clear(Some(2.0), Some(7));
        clear(None, Some(9));
        let b = t.to_bytes();
        let (d, s) = om::TileDepth::decode(Format::D32_FLOAT_S8X24_UINT, &b[..8]);
        assert_eq!((f32::from_bits(d), s), (1.0, 9));
    }

    /// ClearUnorderedAccessViewUint on a raw view writes the first value to each word.
    #[test]
    fn clear_uav_on_a_raw_buffer_writes_words() {
        let m = Memory::zeroed(24).unwrap();
        run(&Command::ClearBufferWords {
            memory: m.clone(),
            first: 1,
            count: 4,
            value: 0xdead_beef,
        });
        let w: Vec<u32> = (0..6).map(|i| word(&m, i * 4)).collect();
        assert_eq!(
            w,
            [0, 0xdead_beef, 0xdead_beef, 0xdead_beef, 0xdead_beef, 0]
        );
    }

    /// ResolveSubresource averages samples: UNORM 255 and 0 over 4 samples (two each)
    /// give 127.5, rounded to 128 by the UNORM rule.
    #[test]
    fn resolve_averages_samples() {
        let ms = tex(Format::R8G8B8A8_UNORM, 2, 1, 4);
        for s in 0..4u32 {
            let v = if s < 2 { 255 } else { 0 };
            for x in 0..2 {
                let a = ms.texel_addr(0, 0, [x, 0, 0], s).unwrap();
                ms.memory().write_bytes(a, &[v, 0, 255, 255]);
            }
        }
        let one = tex(Format::R8G8B8A8_UNORM, 2, 1, 1);
        run(&Command::ResolveSubresource {
            dst: one.clone(),
            dst_slice: 0,
            src: ms,
            src_slice: 0,
        });
        assert_eq!(one.to_bytes(), [128, 0, 255, 255, 128, 0, 255, 255]);
    }

    /// CopyBufferRegion moves exactly the bytes asked; CopyTextureRegion a box.
    #[test]
    fn copies_move_bytes_unchanged() {
        let a = Memory::from_bytes(&[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let b = Memory::zeroed(8).unwrap();
        run(&Command::CopyBufferRegion {
            dst: b.clone(),
            dst_offset: 2,
            src: a.clone(),
            src_offset: 5,
            bytes: 3,
        });
        assert_eq!(b.to_bytes(), [0, 0, 6, 7, 8, 0, 0, 0]);

        let s = tex(Format::R32_UINT, 4, 4, 1);
        let bytes: Vec<u8> = (0u32..16).flat_map(|v| v.to_le_bytes()).collect();
        s.memory().write_bytes(0, &bytes);
        let d = tex(Format::R32_UINT, 4, 4, 1);
        run(&Command::CopyTextureRegion(Box::new(TextureCopy {
            dst: d.clone(),
            dst_mip: 0,
            dst_slice: 0,
            dst_at: [0, 2, 0],
            src: s,
            src_mip: 0,
            src_slice: 0,
            src_box: [1, 0, 0, 3, 2, 1],
        })));
        let got: Vec<u32> = (0..16).map(|i| word(d.memory(), i * 4)).collect();
        // Rows 0..2, columns 1..3 of the source land at rows 2..4, columns 0..2.
        assert_eq!(got, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6, 0, 0]);
    }

    /// A placed footprint (D3D12_PLACED_SUBRESOURCE_FOOTPRINT) puts texel (x, y, z) at
    /// offset + (z × height + y) × RowPitch + x × bytes, slices after one another.
    #[test]
    fn footprint_copies_place_rows_at_the_row_pitch() {
        let mut d = TextureDesc::tex2d(Format::R32_UINT, 2, 2);
        d.dim = TextureDim::Tex3D;
        d.depth_or_array_size = 2;
        let t = Texture::new(d).unwrap();
        let bytes: Vec<u8> = (1u32..=8).flat_map(|v| v.to_le_bytes()).collect();
        t.memory().write_bytes(0, &bytes);
        let buffer = Memory::zeroed(2048).unwrap();
        let copy = |to_texture, texture: &Texture| {
            run(&Command::CopyFootprint(Box::new(FootprintCopy {
                texture: texture.clone(),
                mip: 0,
                slice: 0,
                buffer: buffer.clone(),
                footprint: Footprint {
                    offset: 512,
                    width: 2,
                    height: 2,
                    depth: 2,
                    row_pitch: 256,
                },
                to_texture,
                src_box: [0, 0, 0, 2, 2, 2],
                dst_at: [0; 3],
            })))
        };
        copy(false, &t);
        let w = |at: u64| word(&buffer, at);
        assert_eq!(
            [
                w(512),
                w(516),
                w(768),
                w(772),
                w(1024),
                w(1028),
                w(1280),
                w(1284)
            ],
            [1, 2, 3, 4, 5, 6, 7, 8]
        );
        let back = Texture::new(d).unwrap();
        copy(true, &back);
        assert_eq!(back.to_bytes(), bytes);
    }
}
