//! The stream-output stage: the primitives of the last vertex-processing stage (the
//! geometry program's streams, or without one the vertex or domain program's outputs)
//! written to memory as lists of vertex records, before rasterization.
//!
//! Owns: the stream-output state in D3D12's terms (`D3D12_STREAM_OUTPUT_DESC` with its
//! `D3D12_SO_DECLARATION_ENTRY`s, strides and rasterized stream;
//! `D3D12_STREAM_OUTPUT_BUFFER_VIEW`s), checking it against the stage that feeds it,
//! the records' layout, the overflow rule, the filled-size counters and the statistics.
//! Does not own: which primitives a stage makes (`ia`, `gs`, `tess`, `ds`) or what is
//! rasterized (`draw`).
//!
//! # Rules (D3D11.3 §14 "Stream Output Stage"; D3D12's stream-output structures)
//!
//! - **Declaration.** Each entry copies `ComponentCount` components, from
//!   `StartComponent`, of the output element `SemanticName` / `SemanticIndex` of stream
//!   `Stream` into buffer `OutputSlot`, after the entries before it for that slot; an
//!   entry without a semantic name is a gap of `ComponentCount` components, skipped (the
//!   memory there is not written). A slot's record is a vertex; its stride
//!   (`pBufferStrides`) is at least the record's size, a multiple of 4, at most 2048
//!   bytes (`D3D12_SO_BUFFER_MAX_STRIDE_IN_BYTES`).
//! - **Checks** (`CreateGraphicsPipelineState` refuses each): streams 0 … 3; components
//!   within x … w and within the element's declared mask; up to 4 slots
//!   (`D3D12_SO_BUFFER_SLOT_COUNT`); one slot fed by one stream; no component of one
//!   element written twice into one slot; a stream > 0 only from a geometry program that
//!   outputs on that stream; `RasterizedStream` 0 … 3 or `D3D12_SO_NO_RASTERIZED_STREAM`
//!   (and 0 or none without a geometry program).
//! - **Lists.** Primitives are written whole, in the order the stage makes them: strips
//!   are already restarted into lists (`gs::restart`, `ia::assemble`), adjacency is
//!   dropped, each primitive's vertices in its order (points 1, lines 2, triangles 3).
//! - **Filled size.** Each view's `BufferFilledSizeLocation` holds the bytes already in
//!   the buffer: read before the draw as where writing starts (relative to
//!   `BufferLocation`), written after it with where writing ended, so a later draw
//!   appends. A view without one starts at 0 and keeps no count (dxlane's choice for a job
//!   that does not name one; D3D12 requires the location).
//! - **Overflow.** A primitive is written only when it fits whole in every buffer its
//!   stream writes (`filled + vertices × stride ≤ SizeInBytes`); the first one that does
//!   not stops that stream: it and every later primitive of the stream are written to
//!   none of its buffers, whose filled sizes stay where they were, while other streams go
//!   on (D3D11.3 §14: overflow is per stream; the `SO_OVERFLOW_PREDICATE_STREAMn`
//!   queries). A slot no view is bound to takes its records nowhere and never overflows
//!   (a null `D3D12_STREAM_OUTPUT_BUFFER_VIEW`).
//! - **Statistics** (`D3D12_QUERY_DATA_SO_STATISTICS`), per stream:
//!   `NumPrimitivesWritten` and `PrimitivesStorageNeeded` (every primitive the stream
//!   made, written or not). The job file has no queries: the run report shows them.

use super::gs::stream_elements;
use super::ia::PrimKind;
use super::vs::VertexOutputs;
use crate::ir::{Shader, Stage};
use crate::resources::Memory;

/// Buffer slots (`D3D12_SO_BUFFER_SLOT_COUNT`).
pub const SO_BUFFER_SLOTS: usize = 4;
/// Streams (`D3D12_SO_STREAM_COUNT`).
pub const SO_STREAMS: u32 = 4;
/// `D3D12_SO_NO_RASTERIZED_STREAM`: no stream is rasterized.
pub const NO_RASTERIZED_STREAM: u32 = 0xffff_ffff;
/// The largest stride (`D3D12_SO_BUFFER_MAX_STRIDE_IN_BYTES`).
pub const SO_MAX_STRIDE: u32 = 2048;
/// The most declaration entries (`D3D12_SO_STREAM_COUNT` ×
/// `D3D12_SO_OUTPUT_COMPONENT_COUNT`).
pub const SO_MAX_ENTRIES: usize = 4 * 128;

/// `D3D12_SO_DECLARATION_ENTRY`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoDeclarationEntry {
    /// `Stream`: 0 … 3.
    pub stream: u32,
    /// `SemanticName`; `None`: a gap.
    pub semantic_name: Option<String>,
    /// `SemanticIndex`.
    pub semantic_index: u32,
    /// `StartComponent`: 0 = x … 3 = w.
    pub start_component: u8,
    /// `ComponentCount`: 1 … 4.
    pub component_count: u8,
    /// `OutputSlot`: 0 … 3.
    pub output_slot: u8,
}

/// `D3D12_STREAM_OUTPUT_DESC`: the pipeline state's part.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamOutputDesc {
    /// `pSODeclaration`.
    pub entries: Vec<SoDeclarationEntry>,
    /// `pBufferStrides`, by slot.
    pub strides: Vec<u32>,
    /// `RasterizedStream` (or [`NO_RASTERIZED_STREAM`]).
    pub rasterized_stream: u32,
}

/// `D3D12_STREAM_OUTPUT_BUFFER_VIEW`.
#[derive(Debug, Clone, PartialEq)]
pub struct SoBufferView {
    /// The buffer the records go to.
    pub data: Memory,
    /// Where the view starts in `data` (`BufferLocation` less the buffer's address).
    pub offset: u64,
    /// `SizeInBytes`.
    pub size: u64,
    /// `BufferFilledSizeLocation`: the buffer and byte offset of the 32-bit filled size
    /// (`None`: start at 0, keep no count).
    pub filled_size: Option<(Memory, u64)>,
}

/// The stream-output state of a draw: the description and the bound views
/// (`SOSetTargets`), by slot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamOutput {
    /// The pipeline state's description.
    pub desc: StreamOutputDesc,
    /// The views, by slot (`None`: nothing bound).
    pub buffers: Vec<Option<SoBufferView>>,
}

/// What a stream-output error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoField {
    /// Declaration entry `i`.
    Entry(usize),
    /// The stride of slot `i`.
    Stride(usize),
    /// The view of slot `i`.
    Buffer(usize),
    /// `RasterizedStream`.
    RasterizedStream,
}

/// A stream-output state the pipeline refuses, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SoError {
    /// What it is about.
    pub field: SoField,
    /// What is wrong.
    pub message: String,
}

fn err(field: SoField, message: impl Into<String>) -> SoError {
    SoError {
        field,
        message: message.into(),
    }
}

/// One word a record holds: its byte in the record and the output word it copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Copy {
    byte: u32,
    word: u32,
}

/// A checked stream-output state: per slot its stream, stride and copies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SoLayout {
    /// Per slot: the stream feeding it (`None`: no entry names it).
    slot_stream: [Option<u32>; SO_BUFFER_SLOTS],
    strides: [u32; SO_BUFFER_SLOTS],
    copies: [Vec<Copy>; SO_BUFFER_SLOTS],
    /// The rasterized stream (`None`: none).
    pub rasterized: Option<u32>,
}

impl SoLayout {
    /// Whether stream `s` writes any buffer.
    pub fn writes(&self, s: u32) -> bool {
        self.slot_stream.contains(&Some(s))
    }
}

/// Checks `desc` against `last`, the stage feeding stream output (a geometry program, or
/// the vertex or domain program), and lays the records out (module doc's rules).
pub fn check(desc: &StreamOutputDesc, last: &Shader) -> Result<SoLayout, SoError> {
    let gs = last.stage == Stage::Geometry;
    let mut out = SoLayout::default();
    if desc.strides.len() > SO_BUFFER_SLOTS {
        return Err(err(
            SoField::Stride(SO_BUFFER_SLOTS),
            format!(
                "{} buffer strides; D3D12 has {SO_BUFFER_SLOTS} stream-output buffers (D3D12_SO_BUFFER_SLOT_COUNT)",
                desc.strides.len()
            ),
        ));
    }
    if desc.entries.len() > SO_MAX_ENTRIES {
        return Err(err(
            SoField::Entry(SO_MAX_ENTRIES),
            format!(
                "{} declaration entries; D3D12 takes at most {SO_MAX_ENTRIES}",
                desc.entries.len()
            ),
        ));
    }
    out.rasterized = match desc.rasterized_stream {
        NO_RASTERIZED_STREAM => None,
        s if s < SO_STREAMS && (gs || s == 0) => Some(s),
        s if s < SO_STREAMS => {
            return Err(err(
                SoField::RasterizedStream,
                format!(
                    "rasterized stream {s}, but only a geometry program has streams past 0; the {} program's outputs are stream 0",
                    last.stage
                ),
            ));
        }
        s => {
            return Err(err(
                SoField::RasterizedStream,
                format!(
                    "rasterized stream {s}: streams are 0 to 3, or none (D3D12_SO_NO_RASTERIZED_STREAM)"
                ),
            ));
        }
    };
    // Per slot: the bytes laid out so far, and the components of each element already
    // written (element index in the stream's list, component mask).
    let mut bytes = [0u32; SO_BUFFER_SLOTS];
    let mut written: Vec<(usize, u32, String, u32, u8)> = Vec::new();
    for (i, e) in desc.entries.iter().enumerate() {
        let f = SoField::Entry(i);
        if e.stream >= SO_STREAMS {
            return Err(err(f, format!("stream {}: streams are 0 to 3", e.stream)));
        }
        let slot = usize::from(e.output_slot);
        if slot >= SO_BUFFER_SLOTS {
            return Err(err(
                f,
                format!(
                    "output slot {slot}: D3D12 has {SO_BUFFER_SLOTS} stream-output buffers (0 to 3)"
                ),
            ));
        }
        let (start, count) = (u32::from(e.start_component), u32::from(e.component_count));
        if count == 0 || start + count > 4 {
            return Err(err(
                f,
                format!(
                    "start component {start} and component count {count}: the components must lie within x … w (1 to 4 of them)"
                ),
            ));
        }
        match out.slot_stream[slot] {
            Some(s) if s != e.stream => {
                return Err(err(
                    f,
                    format!(
                        "output slot {slot} takes stream {s} already: one buffer is written by one stream"
                    ),
                ));
            }
            _ => out.slot_stream[slot] = Some(e.stream),
        }
        if e.stream > 0 && !gs {
            return Err(err(
                f,
                format!(
                    "stream {}: the {} program has one stream (0); only a geometry program outputs on streams 1 to 3",
                    e.stream, last.stage
                ),
            ));
        }
        if let Some(name) = &e.semantic_name {
            let elems = stream_elements(last, e.stream);
            if elems.is_empty() {
                return Err(err(
                    f,
                    format!(
                        "stream {}: the {} program outputs nothing on that stream",
                        e.stream, last.stage
                    ),
                ));
            }
            let found = elems.iter().find(|x| {
                x.semantic.eq_ignore_ascii_case(name)
                    && e.semantic_index >= x.semantic_index
                    && e.semantic_index - x.semantic_index < x.rows
            });
            let Some(x) = found else {
                return Err(err(
                    f,
                    format!(
                        "{name}{}: the {} program outputs no such semantic on stream {}",
                        e.semantic_index, last.stage, e.stream
                    ),
                ));
            };
            let want = (((1u32 << count) - 1) << start) as u8;
            if want & !x.mask != 0 {
                return Err(err(
                    f,
                    format!(
                        "{name}{} components {}: the program writes only {}",
                        e.semantic_index,
                        crate::ir::io::mask_letters(want),
                        crate::ir::io::mask_letters(x.mask)
                    ),
                ));
            }
            let key = name.to_ascii_uppercase();
            if let Some(prev) = written.iter().find(|(s, st, n, ix, m)| {
                *s == slot
                    && *st == e.stream
                    && *n == key
                    && *ix == e.semantic_index
                    && m & want != 0
            }) {
                return Err(err(
                    f,
                    format!(
                        "{name}{} components {} overlap components {} an earlier entry writes into output slot {slot}",
                        e.semantic_index,
                        crate::ir::io::mask_letters(want),
                        crate::ir::io::mask_letters(prev.4 & want)
                    ),
                ));
            }
            written.push((slot, e.stream, key, e.semantic_index, want));
            let row = e.semantic_index - x.semantic_index;
            for c in 0..count {
                out.copies[slot].push(Copy {
                    byte: bytes[slot] + 4 * c,
                    word: x.word(row, start + c),
                });
            }
        }
        bytes[slot] += 4 * count;
    }
    for (slot, &len) in bytes.iter().enumerate() {
        if out.slot_stream[slot].is_none() {
            continue;
        }
        let Some(&stride) = desc.strides.get(slot) else {
            return Err(err(
                SoField::Stride(slot),
                format!(
                    "output slot {slot} is written but has no stride ({} strides given)",
                    desc.strides.len()
                ),
            ));
        };
        if stride % 4 != 0 || stride < len || stride == 0 || stride > SO_MAX_STRIDE {
            return Err(err(
                SoField::Stride(slot),
                format!(
                    "stride {stride} of output slot {slot}: its records are {} bytes, so the stride must be a multiple of 4 from {} to {SO_MAX_STRIDE}",
                    len,
                    len.max(4)
                ),
            ));
        }
        out.strides[slot] = stride;
    }
    Ok(out)
}

/// Checks the bound views: up to [`SO_BUFFER_SLOTS`]; each view within its buffer, its
/// filled-size location 4-byte aligned and within its buffer (the D3D12 debug layer's
/// `SOSetTargets` checks).
pub fn check_views(buffers: &[Option<SoBufferView>]) -> Result<(), SoError> {
    if buffers.len() > SO_BUFFER_SLOTS {
        return Err(err(
            SoField::Buffer(SO_BUFFER_SLOTS),
            format!(
                "{} stream-output buffers; D3D12 binds at most {SO_BUFFER_SLOTS}",
                buffers.len()
            ),
        ));
    }
    for (i, b) in buffers.iter().enumerate() {
        let Some(b) = b else { continue };
        if !b.data.contains(b.offset, b.size) {
            return Err(err(
                SoField::Buffer(i),
                format!(
                    "bytes {} … {} of the view are past the buffer's {} bytes",
                    b.offset,
                    b.offset.saturating_add(b.size),
                    b.data.len()
                ),
            ));
        }
        if let Some((m, at)) = &b.filled_size
            && (at % 4 != 0 || !m.contains(*at, 4))
        {
            return Err(err(
                SoField::Buffer(i),
                format!(
                    "the filled size at byte {at}: it is a 32-bit value at a multiple of 4 within its buffer of {} bytes",
                    m.len()
                ),
            ));
        }
    }
    Ok(())
}

/// Per-stream statistics (`D3D12_QUERY_DATA_SO_STATISTICS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct SoStatistics {
    /// `NumPrimitivesWritten`.
    pub primitives_written: u64,
    /// `PrimitivesStorageNeeded`.
    pub primitives_storage_needed: u64,
}

/// The stage at work in one draw: where each buffer's writing is, which streams have
/// overflowed, the statistics.
pub struct SoWriter<'a> {
    layout: &'a SoLayout,
    buffers: &'a [Option<SoBufferView>],
    filled: [u64; SO_BUFFER_SLOTS],
    stopped: [bool; SO_STREAMS as usize],
    /// Per stream.
    pub stats: [SoStatistics; SO_STREAMS as usize],
}

impl<'a> SoWriter<'a> {
    /// Starts writing: each view's filled size is read as where its writing starts.
    pub fn begin(layout: &'a SoLayout, buffers: &'a [Option<SoBufferView>]) -> SoWriter<'a> {
        let mut filled = [0u64; SO_BUFFER_SLOTS];
        for (f, b) in filled.iter_mut().zip(buffers) {
            if let Some((m, at)) = b.as_ref().and_then(|b| b.filled_size.as_ref()) {
                *f = u64::from(m.load_u32(*at).unwrap_or(0));
            }
        }
        SoWriter {
            layout,
            buffers,
            filled,
            stopped: [false; SO_STREAMS as usize],
            stats: [SoStatistics::default(); SO_STREAMS as usize],
        }
    }

    /// Writes one primitive of `stream` (its vertices `verts` in `vo`, `kind` deciding
    /// how many), or counts it as not stored when it does not fit (module doc).
    pub fn primitive(&mut self, stream: u32, kind: PrimKind, vo: &VertexOutputs, verts: [u32; 3]) {
        let s = stream as usize;
        if s >= self.stats.len() || !self.layout.writes(stream) {
            return;
        }
        self.stats[s].primitives_storage_needed += 1;
        if self.stopped[s] {
            return;
        }
        let n = kind.vertices() as u64;
        let slots = (0..SO_BUFFER_SLOTS).filter(|&k| self.layout.slot_stream[k] == Some(stream));
        let fits = slots
            .clone()
            .all(|k| match self.buffers.get(k).and_then(|b| b.as_ref()) {
                None => true,
                Some(b) => self.filled[k]
                    .checked_add(n * u64::from(self.layout.strides[k]))
                    .is_some_and(|end| end <= b.size),
            });
        if !fits {
            self.stopped[s] = true;
            return;
        }
        for k in slots {
            let Some(b) = self.buffers.get(k).and_then(|b| b.as_ref()) else {
                continue;
            };
            let stride = u64::from(self.layout.strides[k]);
            for &v in verts.iter().take(n as usize) {
                let base = b.offset + self.filled[k];
                for c in &self.layout.copies[k] {
                    b.data
                        .store_u32(base + u64::from(c.byte), vo.word(v, c.word));
                }
                self.filled[k] += stride;
            }
        }
        self.stats[s].primitives_written += 1;
    }

    /// Ends writing: each view's filled size gets where its writing ended.
    pub fn finish(self) -> [SoStatistics; SO_STREAMS as usize] {
        for (f, b) in self.filled.iter().zip(self.buffers) {
            if let Some((m, at)) = b.as_ref().and_then(|b| b.filled_size.as_ref()) {
                m.store_u32(*at, u32::try_from(*f).unwrap_or(u32::MAX));
            }
        }
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;

    /// A vertex program writing `SV_Position` (words 0 … 3) and `TEXCOORD0.xy` (4, 5).
    fn vs() -> Shader {
        parse_shader(
            "shader vertex\nregs 1\nio_words in 0 out 8\n\
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
output \"TEXCOORD\" 0 sv none reg 1 rows 1 mask xy float interp undefined slot 4\n\
block0:\n    return\n",
        )
        .unwrap()
    }

    fn entry(
        stream: u32,
        name: Option<&str>,
        start: u8,
        count: u8,
        slot: u8,
    ) -> SoDeclarationEntry {
        SoDeclarationEntry {
            stream,
            semantic_name: name.map(str::to_string),
            semantic_index: 0,
            start_component: start,
            component_count: count,
            output_slot: slot,
        }
    }

    fn desc(entries: Vec<SoDeclarationEntry>, strides: Vec<u32>, rast: u32) -> StreamOutputDesc {
        StreamOutputDesc {
            entries,
            strides,
            rasterized_stream: rast,
        }
    }

    fn refused(d: StreamOutputDesc) -> SoError {
        check(&d, &vs()).unwrap_err()
    }

    /// D3D11.3 §14 and `D3D12_SO_DECLARATION_ENTRY`: entries follow each other in their
    /// slot; a gap skips its components.
    #[test]
    fn entries_and_gaps_lay_out_the_record() {
        let l = check(
            &desc(
                vec![
                    entry(0, Some("TEXCOORD"), 1, 1, 0),
                    entry(0, None, 0, 2, 0),
                    entry(0, Some("sv_position"), 0, 2, 0),
                ],
                vec![24],
                0,
            ),
            &vs(),
        )
        .unwrap();
        assert_eq!(
            l.copies[0],
            vec![
                Copy { byte: 0, word: 5 },
                Copy { byte: 12, word: 0 },
                Copy { byte: 16, word: 1 }
            ]
        );
        assert_eq!(l.rasterized, Some(0));
    }

    /// The pipeline-state checks, each naming its field.
    #[test]
    fn bad_declarations_are_refused_by_field() {
        let e = refused(desc(vec![entry(0, Some("COLOR"), 0, 4, 0)], vec![16], 0));
        assert_eq!(e.field, SoField::Entry(0));
        assert!(e.message.contains("no such semantic"), "{e}");
        let e = refused(desc(vec![entry(0, Some("TEXCOORD"), 1, 2, 0)], vec![16], 0));
        assert!(e.message.contains("writes only xy"), "{e}");
        let e = refused(desc(
            vec![
                entry(0, Some("SV_Position"), 0, 2, 0),
                entry(0, Some("SV_Position"), 1, 2, 0),
            ],
            vec![16],
            0,
        ));
        assert_eq!(e.field, SoField::Entry(1));
        assert!(e.message.contains("overlap"), "{e}");
        let e = refused(desc(
            vec![entry(0, Some("SV_Position"), 0, 4, 0)],
            vec![12],
            0,
        ));
        assert_eq!(e.field, SoField::Stride(0));
        let e = refused(desc(
            vec![entry(0, Some("SV_Position"), 0, 4, 0)],
            vec![18],
            0,
        ));
        assert!(e.message.contains("multiple of 4"), "{e}");
        let e = refused(desc(vec![], vec![4; 5], 0));
        assert_eq!(e.field, SoField::Stride(4));
        let e = refused(desc(vec![], vec![], 4));
        assert_eq!(e.field, SoField::RasterizedStream);
        let e = refused(desc(vec![], vec![], 1));
        assert!(e.message.contains("only a geometry program"), "{e}");
        let e = refused(desc(
            vec![entry(1, Some("SV_Position"), 0, 4, 0)],
            vec![16],
            0,
        ));
        assert!(e.message.contains("has one stream"), "{e}");
        let e = refused(desc(
            vec![entry(0, Some("SV_Position"), 0, 4, 4)],
            vec![16],
            0,
        ));
        assert!(e.message.contains("output slot 4"), "{e}");
        assert!(check(&desc(vec![], vec![], NO_RASTERIZED_STREAM), &vs()).is_ok());
    }

    /// The overflow rule: a primitive that does not fit every buffer of its stream is
    /// written to none, and the stream stops; the filled size stays at the last whole
    /// primitive and the statistics count every primitive as needing storage.
    #[test]
    fn a_primitive_that_does_not_fit_stops_its_stream() {
        let l = check(
            &desc(
                vec![
                    entry(0, Some("SV_Position"), 0, 1, 0),
                    entry(0, Some("TEXCOORD"), 0, 1, 1),
                ],
                vec![4, 8],
                0,
            ),
            &vs(),
        )
        .unwrap();
        let a = Memory::zeroed(64).unwrap();
        let b = Memory::zeroed(64).unwrap();
        let counter = Memory::zeroed(8).unwrap();
        counter.store_u32(4, 8);
        let views = vec![
            Some(SoBufferView {
                data: a.clone(),
                offset: 0,
                size: 64,
                filled_size: Some((counter.clone(), 0)),
            }),
            // 8 bytes already in, room for 4 more records of 8 bytes: one triangle.
            Some(SoBufferView {
                data: b.clone(),
                offset: 0,
                size: 40,
                filled_size: Some((counter.clone(), 4)),
            }),
        ];
        let vo = VertexOutputs {
            words: (0..6u32)
                .flat_map(|v| [v + 1, 0, 0, 0, 10 * (v + 1), 0, 0, 0])
                .collect(),
            stride: 8,
        };
        let mut w = SoWriter::begin(&l, &views);
        w.primitive(0, PrimKind::Triangle, &vo, [0, 1, 2]);
        w.primitive(0, PrimKind::Triangle, &vo, [3, 4, 5]);
        w.primitive(0, PrimKind::Point, &vo, [5, 5, 5]);
        let stats = w.finish();
        assert_eq!(stats[0].primitives_written, 1);
        assert_eq!(stats[0].primitives_storage_needed, 3);
        assert_eq!(counter.load_u32(0), Some(12), "three 4-byte records");
        assert_eq!(counter.load_u32(4), Some(32), "8 + three 8-byte records");
        assert_eq!(a.load_u32(0), Some(1));
        assert_eq!(a.load_u32(8), Some(3));
        assert_eq!(
            a.load_u32(12),
            Some(0),
            "the second triangle is not written"
        );
        assert_eq!(b.load_u32(8), Some(10));
        assert_eq!(b.load_u32(24), Some(30));
        assert_eq!(b.load_u32(32), Some(0));
    }
}
