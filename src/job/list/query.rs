//! Queries and predication in a command list: `[[query_heap]]` entries and the
//! `begin_query`, `end_query`, `resolve_query_data` and `set_predication` commands, made
//! into `pipeline::query` values with every rule the D3D12 runtime and debug layer check
//! refused before the list runs, naming the command and the key.
//!
//! ```toml
//! [[query_heap]]
//! name = "visible"
//! type = "OCCLUSION"          # PIPELINE_STATISTICS, SO_STATISTICS, TIMESTAMP
//! count = 2
//!
//! [[command]]
//! type = "begin_query"        # BeginQuery
//! heap = "visible"
//! index = 0
//! query = "OCCLUSION"         # BINARY_OCCLUSION, PIPELINE_STATISTICS, SO_STATISTICS_STREAMn
//!
//! [[command]]
//! type = "resolve_query_data" # ResolveQueryData
//! heap = "visible"
//! query = "OCCLUSION"
//! first = 0
//! count = 1
//! buffer = "results"
//! offset = 0                  # a multiple of 8
//!
//! [[command]]
//! type = "set_predication"    # SetPredication; no keys: predication off
//! buffer = "results"
//! offset = 0                  # a multiple of 8
//! operation = "EQUAL_ZERO"    # or NOT_EQUAL_ZERO
//! ```
//!
//! Which queries are open and which predicate is set before each command follows from
//! the list's order alone, so each command is given them here (`pipeline::commands::Gated`);
//! only the predicate's value is read as the list runs.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{CommandEntry, Ctx};
use crate::pipeline::commands::{Command, Gated};
use crate::pipeline::query::{
    ActiveQuery, Predicate, PredicationOp, QueryHeap, QueryHeapType, QueryType, Resolve,
};

/// The most queries one heap holds.
pub const MAX_QUERIES_PER_HEAP: u32 = 65_536;

/// One `[[query_heap]]`: `D3D12_QUERY_HEAP_DESC`, named.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct QueryHeapEntry {
    /// The name commands give it.
    pub name: String,
    /// `Type`: `OCCLUSION`, `PIPELINE_STATISTICS`, `SO_STATISTICS` or `TIMESTAMP`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `Count`.
    pub count: u32,
}

/// What the list's order has opened and set before a command.
#[derive(Default)]
pub(super) struct QueryState {
    heaps: HashMap<String, QueryHeap>,
    /// Open queries: heap, index, type, and the command that began them (1-based).
    open: Vec<(String, u32, QueryType, usize)>,
    /// Queries ended at least once, by heap and index.
    ended: HashMap<(String, u32), QueryType>,
    predicate: Option<Predicate>,
}

/// Makes the job's heaps, each checked.
pub(super) fn heaps(entries: &[QueryHeapEntry]) -> Result<QueryState, crate::job::JobError> {
    let mut st = QueryState::default();
    for (i, e) in entries.iter().enumerate() {
        let at = format!("[[query_heap]] #{} (\"{}\")", i + 1, e.name);
        let err = |m: String| crate::job::JobError::entry(&at, m);
        let kind = QueryHeapType::parse(&e.kind).ok_or_else(|| {
            err(format!(
                "`type` \"{}\": one of OCCLUSION, PIPELINE_STATISTICS, SO_STATISTICS, TIMESTAMP (D3D12_QUERY_HEAP_TYPE)",
                e.kind
            ))
        })?;
        if e.count == 0 || e.count > MAX_QUERIES_PER_HEAP {
            return Err(err(format!(
                "`count` {}: a heap holds 1 to {MAX_QUERIES_PER_HEAP} queries",
                e.count
            )));
        }
        if st.heaps.contains_key(&e.name) {
            return Err(err(format!(
                "`name` \"{}\" names an earlier heap too",
                e.name
            )));
        }
        st.heaps
            .insert(e.name.clone(), QueryHeap::new(&e.name, kind, e.count));
    }
    Ok(st)
}

impl Ctx<'_> {
    /// The heap a query command names, with the query type it names checked against it.
    fn heap_and_type(&self, e: &CommandEntry) -> Result<(QueryHeap, QueryType), String> {
        let h = e.heap.as_ref().ok_or("missing `heap`")?;
        let heap = self.queries.heaps.get(h).cloned().ok_or_else(|| {
            let mut known: Vec<&str> = self.queries.heaps.keys().map(String::as_str).collect();
            known.sort_unstable();
            format!(
                "`heap`: no [[query_heap]] is named \"{h}\" (the job names: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        })?;
        let q = e
            .query
            .as_ref()
            .ok_or("missing `query` (the D3D12_QUERY_TYPE)")?;
        let kind = QueryType::parse(q).ok_or_else(|| {
            format!(
                "`query` \"{q}\": one of OCCLUSION, BINARY_OCCLUSION, PIPELINE_STATISTICS, SO_STATISTICS_STREAM0 … 3, TIMESTAMP"
            )
        })?;
        if kind.heap() != heap.kind {
            return Err(format!(
                "`query` {q}: heap \"{h}\" is a {} heap, which holds no {q} query",
                heap.kind.name()
            ));
        }
        Ok((heap, kind))
    }

    /// `begin_query` and `end_query` (command `i`, 0-based).
    pub(super) fn begin_or_end(
        &mut self,
        i: usize,
        e: &CommandEntry,
        begin: bool,
    ) -> Result<Command, String> {
        let (heap, kind) = self.heap_and_type(e)?;
        let index = e.index.ok_or("missing `index`")?;
        if index >= heap.count() {
            return Err(format!(
                "`index` {index}: heap \"{}\" holds {} queries (0 to {})",
                heap.name,
                heap.count(),
                heap.count() - 1
            ));
        }
        let open = self
            .queries
            .open
            .iter()
            .position(|(h, k, _, _)| *h == heap.name && *k == index);
        if begin {
            if kind == QueryType::Timestamp {
                return Err(
                    "`query` TIMESTAMP: a timestamp has no BeginQuery; `end_query` takes it".into(),
                );
            }
            if let Some(o) = open {
                return Err(format!(
                    "`index` {index}: query {index} of \"{}\" was begun by [[command]] #{} and not ended",
                    heap.name, self.queries.open[o].3
                ));
            }
            self.queries
                .open
                .push((heap.name.clone(), index, kind, i + 1));
            return Ok(Command::BeginQuery { heap, index });
        }
        if kind != QueryType::Timestamp {
            let Some(o) = open else {
                return Err(format!(
                    "`index` {index}: query {index} of \"{}\" was not begun (end_query without begin_query)",
                    heap.name
                ));
            };
            let (_, _, began, at) = self.queries.open.remove(o);
            if began != kind {
                return Err(format!(
                    "`query` {}: [[command]] #{at} began query {index} as {}; EndQuery names the type BeginQuery did",
                    kind.name(),
                    began.name()
                ));
            }
        }
        self.queries.ended.insert((heap.name.clone(), index), kind);
        Ok(Command::EndQuery { heap, index, kind })
    }

    /// `resolve_query_data`.
    pub(super) fn resolve_query_data(&mut self, e: &CommandEntry) -> Result<Command, String> {
        let (heap, kind) = self.heap_and_type(e)?;
        let first = e.first.unwrap_or(0);
        let count = e.count.ok_or("missing `count` (NumQueries)")?;
        if u64::from(first) + u64::from(count) > u64::from(heap.count()) {
            return Err(format!(
                "`first` {first} and `count` {count}: heap \"{}\" holds {} queries",
                heap.name,
                heap.count()
            ));
        }
        for index in first..first + count {
            if let Some(o) = self
                .queries
                .open
                .iter()
                .find(|(h, k, _, _)| *h == heap.name && *k == index)
            {
                return Err(format!(
                    "query {index} of \"{}\": begun by [[command]] #{} and not ended; resolving a query that has not completed is undefined (the debug layer's error)",
                    heap.name, o.3
                ));
            }
            match self.queries.ended.get(&(heap.name.clone(), index)) {
                None => {
                    return Err(format!(
                        "query {index} of \"{}\": never ended; resolving an uninitialized query is undefined (the debug layer's error)",
                        heap.name
                    ));
                }
                // An occlusion query resolves as either occlusion type; others as their own.
                Some(t)
                    if t.heap() != kind.heap()
                        || (t.heap() != QueryHeapType::Occlusion && *t != kind) =>
                {
                    return Err(format!(
                        "`query` {}: query {index} of \"{}\" was a {} query",
                        kind.name(),
                        heap.name,
                        t.name()
                    ));
                }
                Some(_) => {}
            }
        }
        let b = e.buffer.as_ref().ok_or("missing `buffer`")?;
        let (_, buffer) = self.buffer("buffer", b)?;
        let offset = e.offset.unwrap_or(0);
        if offset % 8 != 0 {
            return Err(format!(
                "`offset` {offset}: AlignedDestinationBufferOffset is a multiple of 8"
            ));
        }
        let bytes = u64::from(count) * kind.result_bytes();
        if offset.saturating_add(bytes) > buffer.len() {
            return Err(format!(
                "`buffer`: {count} {} result(s) of {} bytes from byte {offset} end at byte {}, past the {} bytes of \"{b}\"",
                kind.name(),
                kind.result_bytes(),
                offset.saturating_add(bytes),
                buffer.len()
            ));
        }
        Ok(Command::ResolveQueryData(Box::new(Resolve {
            heap,
            kind,
            first,
            count,
            buffer,
            offset,
        })))
    }

    /// `set_predication`: with `buffer`, a predicate; without any key, predication off.
    pub(super) fn set_predication(&mut self, e: &CommandEntry) -> Result<Command, String> {
        let predicate = match &e.buffer {
            None => {
                if e.offset.is_some() || e.operation.is_some() {
                    return Err(
                        "`offset` and `operation` need `buffer` (no keys: predication off)".into(),
                    );
                }
                None
            }
            Some(b) => {
                let (_, buffer) = self.buffer("buffer", b)?;
                let offset = e.offset.unwrap_or(0);
                if offset % 8 != 0 || offset.saturating_add(8) > buffer.len() {
                    return Err(format!(
                        "`offset` {offset}: the predicate is a 64-bit value inside \"{b}\" ({} bytes), at a multiple of 8 (AlignedBufferOffset)",
                        buffer.len()
                    ));
                }
                let op = match e.operation.as_deref() {
                    Some("EQUAL_ZERO") => PredicationOp::EqualZero,
                    Some("NOT_EQUAL_ZERO") => PredicationOp::NotEqualZero,
                    Some(o) => {
                        return Err(format!(
                            "`operation` \"{o}\": EQUAL_ZERO or NOT_EQUAL_ZERO (D3D12_PREDICATION_OP)"
                        ));
                    }
                    None => return Err("missing `operation`".into()),
                };
                Some(Predicate { buffer, offset, op })
            }
        };
        self.queries.predicate.clone_from(&predicate);
        Ok(Command::SetPredication(predicate))
    }

    /// `c` with the predicate and the open queries the list's order gives it: none for
    /// the commands predication does not apply to (`pipeline::query`).
    pub(super) fn gate(&self, c: Command) -> Command {
        if matches!(
            c,
            Command::BeginQuery { .. }
                | Command::EndQuery { .. }
                | Command::ResolveQueryData(_)
                | Command::SetPredication(_)
        ) {
            return c;
        }
        let queries: Vec<ActiveQuery> = if c.program_count() > 0 {
            self.queries
                .open
                .iter()
                .filter_map(|(h, index, _, _)| {
                    Some(ActiveQuery {
                        heap: self.queries.heaps.get(h)?.clone(),
                        index: *index,
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        if self.queries.predicate.is_none() && queries.is_empty() {
            return c;
        }
        Command::Gated(Box::new(Gated {
            command: c,
            predicate: self.queries.predicate.clone(),
            queries,
        }))
    }

    /// After the last command: every query begun was ended (D3D12 ends a query in the
    /// command list that began it).
    pub(super) fn check_queries_ended(&self) -> Result<(), crate::job::JobError> {
        match self.queries.open.first() {
            Some((h, index, kind, at)) => Err(crate::job::JobError::entry(
                format!("[[command]] #{at} (begin_query)"),
                format!(
                    "query {index} of \"{h}\" ({}) is never ended: a query ends in the list that began it",
                    kind.name()
                ),
            )),
            None => Ok(()),
        }
    }
}
