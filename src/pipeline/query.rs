//! Queries and predication: D3D12 query heaps, `BeginQuery` / `EndQuery`,
//! `ResolveQueryData`, and the predicate `SetPredication` sets.
//!
//! Owns what each query type counts, the bytes `ResolveQueryData` writes, and whether a
//! predicate lets a command run. Does not own: checking a list's query and predication
//! commands before it runs (`job::list`), or running the commands (`commands`).
//!
//! # Rules
//!
//! - **Heaps and types** (`D3D12_QUERY_HEAP_TYPE`, `D3D12_QUERY_TYPE`): an occlusion heap
//!   holds `OCCLUSION` and `BINARY_OCCLUSION` queries, a pipeline-statistics heap
//!   `PIPELINE_STATISTICS`, a stream-output heap `SO_STATISTICS_STREAM0` … `3`, a
//!   timestamp heap `TIMESTAMP`. A query counts only the draws and dispatches between its
//!   `BeginQuery` and `EndQuery`; `BeginQuery` starts it from zero. A timestamp has no
//!   begin: its `EndQuery` takes the time.
//! - **Occlusion** (`D3D12_QUERY_TYPE_OCCLUSION`; `ResolveQueryData`: "the number of
//!   samples that passed the test"): the exact count of samples the output
//!   merger kept — covered, inside the sample mask, not discarded, not removed by
//!   `SV_Coverage` or alpha-to-coverage, and passing the depth, stencil and depth-bounds
//!   tests (every covered sample passes without a depth buffer). A draw with no pixel
//!   program counts the samples that pass its tests. Binary occlusion resolves to 1 when
//!   that count is not zero, else 0 ("the least significant bit is either 0 … or 1 …; the
//!   rest of the bits are 0": `ResolveQueryData`).
//! - **Pipeline statistics** (`D3D12_QUERY_DATA_PIPELINE_STATISTICS`, eleven `UINT64`s in
//!   its order): `IAVertices` the vertices (or indices) the input assembler read,
//!   `IAPrimitives` the primitives (or patches) it assembled, `VSInvocations` the vertex
//!   program's invocations (each distinct vertex of an instance once: D3D allows a
//!   post-transform cache, and dxlane shades each distinct index once per instance),
//!   `GSInvocations` the geometry program's (input primitives × `[instance(n)]`),
//!   `GSPrimitives` the primitives it emitted on every stream, `CInvocations` the
//!   primitives of the rasterized stream that reached the clipper (none under rasterizer
//!   discard), `CPrimitives` what clipping and culling left for the rasterizer (a clipped
//!   polygon counts once per triangle), `PSInvocations` the pixel program's invocations
//!   that stood for covered pixels or samples — helper lanes are not counted, as they
//!   produce nothing (the counter's documentation does not say whether they count:
//!   dxlane's choice), none without a pixel program — `HSInvocations` the hull program's
//!   patches, `DSInvocations` the domain points shaded, `CSInvocations` the compute
//!   threads (thread groups × threads per group). A mesh draw counts no input-assembler
//!   or vertex work.
//! - **Stream-output statistics** (`D3D12_QUERY_DATA_SO_STATISTICS`):
//!   `NumPrimitivesWritten` and `PrimitivesStorageNeeded` of the query's stream, summed
//!   over its draws (`so`: a primitive that does not fit is needed, not written).
//! - **Timestamps** are a monotonic count of nanoseconds since the list was prepared: the
//!   frequency dxlane reports (`GetTimestampFrequency`) is 1,000,000,000 Hz.
//! - **`ResolveQueryData`** writes each query's data contiguously from an offset that is a
//!   multiple of 8: 8 bytes per occlusion, binary-occlusion or timestamp query, 88 per
//!   pipeline-statistics query, 16 per stream-output query, little-endian `UINT64`s.
//! - **Predication** (`SetPredication`, `D3D12_PREDICATION_OP`): while a predicate is set,
//!   each predicated command reads the 64-bit value at the buffer's offset when it would
//!   run, and is skipped when the value is zero under `EQUAL_ZERO` or non-zero under
//!   `NOT_EQUAL_ZERO` ("subsequent rendering and resource manipulation commands are not
//!   actually performed if the resulting predicate data of the predicate is equal to the
//!   operation specified"). Draws, dispatches (mesh and ray dispatches too),
//!   `ExecuteIndirect`, clears, copies and `ResolveSubresource` are predicated;
//!   `BeginQuery`, `EndQuery`, `ResolveQueryData` and `SetPredication` are not (D3D12's
//!   "Predication" article).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::draw::DrawReport;
use super::so::SoStatistics;
use super::work::WorkReport;
use crate::resources::Memory;

/// Timestamp ticks per second (`ID3D12CommandQueue::GetTimestampFrequency`).
pub const TIMESTAMP_FREQUENCY: u64 = 1_000_000_000;

/// `D3D12_QUERY_HEAP_TYPE`: what a heap's queries may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryHeapType {
    /// `D3D12_QUERY_HEAP_TYPE_OCCLUSION`.
    Occlusion,
    /// `D3D12_QUERY_HEAP_TYPE_PIPELINE_STATISTICS`.
    PipelineStatistics,
    /// `D3D12_QUERY_HEAP_TYPE_SO_STATISTICS`.
    SoStatistics,
    /// `D3D12_QUERY_HEAP_TYPE_TIMESTAMP`.
    Timestamp,
}

impl QueryHeapType {
    /// The type a job file names (`"OCCLUSION"`, …).
    pub fn parse(s: &str) -> Option<QueryHeapType> {
        Some(match s {
            "OCCLUSION" => QueryHeapType::Occlusion,
            "PIPELINE_STATISTICS" => QueryHeapType::PipelineStatistics,
            "SO_STATISTICS" => QueryHeapType::SoStatistics,
            "TIMESTAMP" => QueryHeapType::Timestamp,
            _ => return None,
        })
    }

    /// The name a job file gives it.
    pub fn name(self) -> &'static str {
        match self {
            QueryHeapType::Occlusion => "OCCLUSION",
            QueryHeapType::PipelineStatistics => "PIPELINE_STATISTICS",
            QueryHeapType::SoStatistics => "SO_STATISTICS",
            QueryHeapType::Timestamp => "TIMESTAMP",
        }
    }
}

/// `D3D12_QUERY_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryType {
    /// `D3D12_QUERY_TYPE_OCCLUSION`: samples passed.
    Occlusion,
    /// `D3D12_QUERY_TYPE_BINARY_OCCLUSION`: whether any sample passed.
    BinaryOcclusion,
    /// `D3D12_QUERY_TYPE_PIPELINE_STATISTICS`.
    PipelineStatistics,
    /// `D3D12_QUERY_TYPE_SO_STATISTICS_STREAM0` … `3`.
    SoStatistics(u8),
    /// `D3D12_QUERY_TYPE_TIMESTAMP`.
    Timestamp,
}

impl QueryType {
    /// The type a job file names (`"OCCLUSION"`, `"SO_STATISTICS_STREAM2"`, …).
    pub fn parse(s: &str) -> Option<QueryType> {
        Some(match s {
            "OCCLUSION" => QueryType::Occlusion,
            "BINARY_OCCLUSION" => QueryType::BinaryOcclusion,
            "PIPELINE_STATISTICS" => QueryType::PipelineStatistics,
            "TIMESTAMP" => QueryType::Timestamp,
            _ => {
                let k = s.strip_prefix("SO_STATISTICS_STREAM")?;
                match k {
                    "0" | "1" | "2" | "3" => QueryType::SoStatistics(k.as_bytes()[0] - b'0'),
                    _ => return None,
                }
            }
        })
    }

    /// The name a job file gives it.
    pub fn name(self) -> String {
        match self {
            QueryType::Occlusion => "OCCLUSION".into(),
            QueryType::BinaryOcclusion => "BINARY_OCCLUSION".into(),
            QueryType::PipelineStatistics => "PIPELINE_STATISTICS".into(),
            QueryType::SoStatistics(k) => format!("SO_STATISTICS_STREAM{k}"),
            QueryType::Timestamp => "TIMESTAMP".into(),
        }
    }

    /// The heap type that holds queries of this type.
    pub fn heap(self) -> QueryHeapType {
        match self {
            QueryType::Occlusion | QueryType::BinaryOcclusion => QueryHeapType::Occlusion,
            QueryType::PipelineStatistics => QueryHeapType::PipelineStatistics,
            QueryType::SoStatistics(_) => QueryHeapType::SoStatistics,
            QueryType::Timestamp => QueryHeapType::Timestamp,
        }
    }

    /// Bytes `ResolveQueryData` writes per query.
    pub fn result_bytes(self) -> u64 {
        match self {
            QueryType::PipelineStatistics => 88,
            QueryType::SoStatistics(_) => 16,
            _ => 8,
        }
    }
}

/// `D3D12_QUERY_DATA_PIPELINE_STATISTICS`, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[allow(missing_docs)]
pub struct PipelineStatistics {
    pub ia_vertices: u64,
    pub ia_primitives: u64,
    pub vs_invocations: u64,
    pub gs_invocations: u64,
    pub gs_primitives: u64,
    pub c_invocations: u64,
    pub c_primitives: u64,
    pub ps_invocations: u64,
    pub hs_invocations: u64,
    pub ds_invocations: u64,
    pub cs_invocations: u64,
}

impl PipelineStatistics {
    /// The eleven counters in `D3D12_QUERY_DATA_PIPELINE_STATISTICS`'s order.
    pub fn counters(&self) -> [u64; 11] {
        [
            self.ia_vertices,
            self.ia_primitives,
            self.vs_invocations,
            self.gs_invocations,
            self.gs_primitives,
            self.c_invocations,
            self.c_primitives,
            self.ps_invocations,
            self.hs_invocations,
            self.ds_invocations,
            self.cs_invocations,
        ]
    }

    /// What draw `d` counts (see the module doc).
    pub fn of_draw(d: &DrawReport) -> PipelineStatistics {
        let mesh = d.mesh_groups > 0 || d.ms_lane_instructions > 0;
        let tess = d.hs_lane_instructions > 0 || d.domain_points > 0 || d.patches_culled > 0;
        PipelineStatistics {
            ia_vertices: d.ia_vertices,
            ia_primitives: if mesh { 0 } else { d.primitives },
            vs_invocations: if mesh { 0 } else { d.vertices_shaded },
            gs_invocations: d.gs_invocations,
            gs_primitives: d.gs_primitives,
            c_invocations: d.clip_invocations,
            c_primitives: d.primitives_rasterized,
            ps_invocations: d.pixels_shaded,
            hs_invocations: if tess { d.primitives } else { 0 },
            ds_invocations: d.domain_points,
            cs_invocations: 0,
        }
    }

    fn add(&mut self, o: &PipelineStatistics) {
        self.ia_vertices += o.ia_vertices;
        self.ia_primitives += o.ia_primitives;
        self.vs_invocations += o.vs_invocations;
        self.gs_invocations += o.gs_invocations;
        self.gs_primitives += o.gs_primitives;
        self.c_invocations += o.c_invocations;
        self.c_primitives += o.c_primitives;
        self.ps_invocations += o.ps_invocations;
        self.hs_invocations += o.hs_invocations;
        self.ds_invocations += o.ds_invocations;
        self.cs_invocations += o.cs_invocations;
    }
}

/// What one query has counted since its `BeginQuery` (or holds after its `EndQuery`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryData {
    /// Samples that passed (occlusion).
    pub samples: u64,
    /// Pipeline statistics.
    pub statistics: PipelineStatistics,
    /// Stream-output statistics per stream.
    pub stream_output: [SoStatistics; 4],
    /// A timestamp's ticks.
    pub timestamp: u64,
}

impl QueryData {
    /// Adds what `runs` did; `threads_per_group` is the compute program's group size
    /// (for `CSInvocations`).
    pub fn add_runs(&mut self, runs: &[WorkReport], threads_per_group: u64) {
        for r in runs {
            match r {
                WorkReport::Draw(d) => {
                    self.samples += d.samples_passed;
                    self.statistics.add(&PipelineStatistics::of_draw(d));
                    if let Some(so) = d.stream_output {
                        for (a, b) in self.stream_output.iter_mut().zip(so) {
                            a.primitives_written += b.primitives_written;
                            a.primitives_storage_needed += b.primitives_storage_needed;
                        }
                    }
                }
                WorkReport::Dispatch(d) => {
                    self.statistics.cs_invocations += d.groups.saturating_mul(threads_per_group);
                }
                WorkReport::List(_) | WorkReport::Rays(_) => {}
            }
        }
    }

    /// The bytes `ResolveQueryData` writes for this query as a `kind` query.
    pub fn resolved(&self, kind: QueryType) -> Vec<u8> {
        let words: Vec<u64> = match kind {
            QueryType::Occlusion => vec![self.samples],
            QueryType::BinaryOcclusion => vec![u64::from(self.samples != 0)],
            QueryType::PipelineStatistics => self.statistics.counters().to_vec(),
            QueryType::SoStatistics(k) => {
                let s = self.stream_output[usize::from(k & 3)];
                vec![s.primitives_written, s.primitives_storage_needed]
            }
            QueryType::Timestamp => vec![self.timestamp],
        };
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The query's values as the run summary lists them.
    pub fn summary(&self, kind: QueryType) -> serde_json::Value {
        match kind {
            QueryType::Occlusion => serde_json::json!(self.samples),
            QueryType::BinaryOcclusion => serde_json::json!(u64::from(self.samples != 0)),
            QueryType::PipelineStatistics => serde_json::json!(self.statistics),
            QueryType::SoStatistics(k) => {
                serde_json::json!(self.stream_output[usize::from(k & 3)])
            }
            QueryType::Timestamp => serde_json::json!(self.timestamp),
        }
    }
}

/// A query heap (`ID3D12QueryHeap`): its queries' data, shared by the list's commands
/// that name it. Each run of a list begins its queries again, so running a list twice
/// gives the same results.
#[derive(Debug, Clone)]
pub struct QueryHeap {
    /// The heap's name in the job file.
    pub name: String,
    /// `D3D12_QUERY_HEAP_DESC::Type`.
    pub kind: QueryHeapType,
    slots: Arc<Mutex<Vec<QueryData>>>,
    /// Timestamps count from here.
    origin: Instant,
}

impl QueryHeap {
    /// A heap of `count` queries (the caller checked `count` against its limit).
    pub fn new(name: &str, kind: QueryHeapType, count: u32) -> QueryHeap {
        QueryHeap {
            name: name.to_string(),
            kind,
            slots: Arc::new(Mutex::new(vec![QueryData::default(); count as usize])),
            origin: Instant::now(),
        }
    }

    /// The number of queries.
    pub fn count(&self) -> u32 {
        self.lock().len() as u32
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<QueryData>> {
        // A worker that panicked cannot leave a slot half-written: take the data.
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `BeginQuery`: query `index` counts from zero.
    pub fn begin(&self, index: u32) {
        if let Some(s) = self.lock().get_mut(index as usize) {
            *s = QueryData::default();
        }
    }

    /// `EndQuery` of a timestamp: query `index` takes the time.
    pub fn stamp(&self, index: u32) {
        let ns = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if let Some(s) = self.lock().get_mut(index as usize) {
            s.timestamp = ns;
        }
    }

    /// Adds `runs` to query `index`.
    pub fn add(&self, index: u32, runs: &[WorkReport], threads_per_group: u64) {
        if let Some(s) = self.lock().get_mut(index as usize) {
            s.add_runs(runs, threads_per_group);
        }
    }

    /// Query `index`'s data.
    pub fn data(&self, index: u32) -> QueryData {
        self.lock().get(index as usize).copied().unwrap_or_default()
    }
}

/// `ResolveQueryData`.
#[derive(Debug, Clone)]
pub struct Resolve {
    /// The heap.
    pub heap: QueryHeap,
    /// `Type`.
    pub kind: QueryType,
    /// `StartIndex`.
    pub first: u32,
    /// `NumQueries`.
    pub count: u32,
    /// `pDestinationBuffer`.
    pub buffer: Memory,
    /// `AlignedDestinationBufferOffset`.
    pub offset: u64,
}

impl Resolve {
    /// Writes the queries' data into the buffer (checked to fit before the list runs).
    pub fn run(&self) {
        let mut at = self.offset;
        for i in self.first..self.first.saturating_add(self.count) {
            let b = self.heap.data(i).resolved(self.kind);
            self.buffer.write_bytes(at, &b);
            at += b.len() as u64;
        }
    }

    /// The values resolved, one per query, as the run summary lists them.
    pub fn values(&self) -> Vec<ResolvedQuery> {
        (self.first..self.first.saturating_add(self.count))
            .map(|index| ResolvedQuery {
                heap: self.heap.name.clone(),
                index,
                kind: self.kind.name(),
                value: self.heap.data(index).summary(self.kind),
            })
            .collect()
    }
}

/// One query's resolved value, as the run summary lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ResolvedQuery {
    /// The heap's name.
    pub heap: String,
    /// The query's index in it.
    pub index: u32,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its value: a count, or the statistics by name.
    pub value: serde_json::Value,
}

/// `D3D12_PREDICATION_OP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicationOp {
    /// `D3D12_PREDICATION_OP_EQUAL_ZERO`: skip when the value is 0.
    EqualZero,
    /// `D3D12_PREDICATION_OP_NOT_EQUAL_ZERO`: skip when it is not.
    NotEqualZero,
}

/// The predicate a `SetPredication` set.
#[derive(Debug, Clone)]
pub struct Predicate {
    /// The buffer.
    pub buffer: Memory,
    /// `AlignedBufferOffset` (a multiple of 8, the value inside the buffer: checked).
    pub offset: u64,
    /// The operation.
    pub op: PredicationOp,
}

impl Predicate {
    /// Whether a predicated command runs now: the 64-bit value read now does not equal
    /// the operation.
    pub fn passes(&self) -> bool {
        let mut b = [0u8; 8];
        self.buffer.read_bytes(self.offset, &mut b);
        let zero = u64::from_le_bytes(b) == 0;
        match self.op {
            PredicationOp::EqualZero => !zero,
            PredicationOp::NotEqualZero => zero,
        }
    }
}

/// A query a command runs inside: its heap and index.
#[derive(Debug, Clone)]
pub struct ActiveQuery {
    /// The heap.
    pub heap: QueryHeap,
    /// The query's index.
    pub index: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ResolveQueryData`'s layouts: 8 bytes per occlusion query, binary occlusion 0 or
    /// 1, 88 bytes of pipeline statistics in D3D12's order, 16 of SO statistics.
    #[test]
    fn resolved_layouts_follow_d3d12s_structs() {
        let mut d = QueryData {
            samples: 37,
            ..QueryData::default()
        };
        d.statistics.ia_vertices = 1;
        d.statistics.cs_invocations = 11;
        d.stream_output[2] = SoStatistics {
            primitives_written: 5,
            primitives_storage_needed: 9,
        };
        assert_eq!(d.resolved(QueryType::Occlusion), 37u64.to_le_bytes());
        assert_eq!(d.resolved(QueryType::BinaryOcclusion), 1u64.to_le_bytes());
        let p = d.resolved(QueryType::PipelineStatistics);
        assert_eq!(p.len(), 88);
        assert_eq!(p[..8], 1u64.to_le_bytes());
        assert_eq!(p[80..], 11u64.to_le_bytes());
        let s = d.resolved(QueryType::SoStatistics(2));
        assert_eq!(s[..8], 5u64.to_le_bytes());
        assert_eq!(s[8..], 9u64.to_le_bytes());
        assert_eq!(
            QueryData::default().resolved(QueryType::BinaryOcclusion),
            [0; 8]
        );
    }

    /// `D3D12_PREDICATION_OP`: EQUAL_ZERO skips on 0, NOT_EQUAL_ZERO on anything else,
    /// over all 64 bits.
    #[test]
    fn predicates_read_all_64_bits() {
        let m = Memory::zeroed(16).unwrap();
        let p = |op| Predicate {
            buffer: m.clone(),
            offset: 8,
            op,
        };
        assert!(!p(PredicationOp::EqualZero).passes());
        assert!(p(PredicationOp::NotEqualZero).passes());
        m.write_bytes(15, &[1]);
        assert!(p(PredicationOp::EqualZero).passes());
        assert!(!p(PredicationOp::NotEqualZero).passes());
    }

    #[test]
    fn query_types_name_their_heaps() {
        for (n, h) in [
            ("OCCLUSION", QueryHeapType::Occlusion),
            ("BINARY_OCCLUSION", QueryHeapType::Occlusion),
            ("PIPELINE_STATISTICS", QueryHeapType::PipelineStatistics),
            ("SO_STATISTICS_STREAM3", QueryHeapType::SoStatistics),
            ("TIMESTAMP", QueryHeapType::Timestamp),
        ] {
            let t = QueryType::parse(n).unwrap();
            assert_eq!((t.heap(), t.name()), (h, n.to_string()));
        }
        assert!(QueryType::parse("SO_STATISTICS_STREAM4").is_none());
        assert!(QueryType::parse("SO_STATISTICS_STREAM").is_none());
    }
}
