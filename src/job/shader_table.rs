//! Shader tables in buffer memory, as `D3D12_DISPATCH_RAYS_DESC` gives them: dxlane's
//! shader identifiers, GPU virtual addresses and GPU descriptor handles, the
//! `data = { records = [...] }` form that writes them, and reading a pipeline's tables
//! back from a buffer's bytes (DXR functional spec, "Shader identifier", "Shader
//! record", "Shader tables", "Shader record stride", "Shader table memory
//! initialization").
//!
//! Owns: the identifier of an export or hit group; the address of a `[[resource]]` and
//! the handle of a `[[heap]]` slot; the record writer; the table checks (alignment,
//! stride, sizes) and the decoding of each record into the program or hit group it names
//! and its local root arguments. Does not own: which exports and hit groups a pipeline
//! holds (`job::rays`), checking arguments against resources (`job::local_root`), running
//! the tables (`pipeline::rays`).
//!
//! # dxlane's identifiers, addresses and handles (opaque in D3D; dxlane's choice)
//!
//! - A shader identifier is 32 bytes: the 8 bytes `dxlaneID`, then three 64-bit
//!   little-endian FNV-1a hashes of the export's or hit group's name (offset bases
//!   [`HASH_SEEDS`]). It depends on the name only, so a job can write it before the
//!   pipeline exists; it is never all zeros, and two names of one pipeline with the same
//!   identifier are refused when the pipeline is made.
//! - The GPU virtual address of the `[[resource]]` entry at index `i` (0-based, file
//!   order) is `(i + 1) × 2^40` ([`resource_address`]); byte `b` of it is that plus `b`.
//! - The GPU descriptor handle of `[[heap]]` slot `s` is `0x4000_0000_0000_0000 + 32 × s`
//!   ([`heap_handle`]; a descriptor increment of 32).

use crate::container::rts0::{RootParameterKind, RootSignature, SHADER_IDENTIFIER_SIZE};
use crate::pipeline::rays::{ShaderTable, TableRecord};
use crate::resources::Memory;

use super::JobError;
use super::bind::{BoundJob, Storage, resource_entry_name};
use super::schema::{ConstantValue, JobFile, LocalArgumentEntry, RecordArgument, TableRange};

/// `D3D12_RAYTRACING_SHADER_TABLE_BYTE_ALIGNMENT`: a table's start address.
pub const TABLE_ALIGNMENT: u64 = 64;

/// `D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT`: a stride's multiple.
pub const RECORD_ALIGNMENT: u64 = 32;

/// The largest record stride (DXR spec "Shader record").
pub const MAX_STRIDE: u64 = 4096;

/// The most records dxlane reads from one table (its bound: each is decoded before the
/// launch).
pub const MAX_RECORDS: u64 = 4096;

/// The first 8 bytes of every dxlane shader identifier.
pub const IDENTIFIER_TAG: [u8; 8] = *b"dxlaneID";

/// The FNV-1a offset bases of the identifier's three hashes.
pub const HASH_SEEDS: [u64; 3] = [
    0xcbf2_9ce4_8422_2325,
    0x6c62_272e_07bb_0142,
    0x9e37_79b9_7f4a_7c15,
];

/// Where the addresses of `[[resource]]` entries start and how far apart they are.
const ADDRESS_SHIFT: u32 = 40;

/// The GPU descriptor handle of `[[heap]]` slot 0.
pub const HEAP_HANDLE_BASE: u64 = 0x4000_0000_0000_0000;

/// The handle increment between `[[heap]]` slots.
pub const HEAP_HANDLE_INCREMENT: u64 = 32;

/// A 32-byte shader identifier.
pub type Identifier = [u8; SHADER_IDENTIFIER_SIZE as usize];

/// The identifier dxlane gives the export or hit group `name` (see the module doc).
pub fn identifier(name: &str) -> Identifier {
    let mut out = [0u8; SHADER_IDENTIFIER_SIZE as usize];
    out[..8].copy_from_slice(&IDENTIFIER_TAG);
    for (k, seed) in HASH_SEEDS.iter().enumerate() {
        let mut h = *seed;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let at = 8 + 8 * k;
        out[at..at + 8].copy_from_slice(&h.to_le_bytes());
    }
    out
}

/// The GPU virtual address of byte 0 of the `[[resource]]` entry at `index`.
pub fn resource_address(index: usize) -> u64 {
    (index as u64 + 1) << ADDRESS_SHIFT
}

/// The `[[resource]]` index and byte offset an address points at (`None` below the
/// first resource).
pub fn address_resource(address: u64) -> Option<(usize, u64)> {
    let i = (address >> ADDRESS_SHIFT).checked_sub(1)?;
    Some((
        usize::try_from(i).ok()?,
        address & ((1 << ADDRESS_SHIFT) - 1),
    ))
}

/// The GPU descriptor handle of `[[heap]]` slot `slot`.
pub fn heap_handle(slot: u32) -> u64 {
    HEAP_HANDLE_BASE + u64::from(slot) * HEAP_HANDLE_INCREMENT
}

/// The name by which a record's descriptor table names `[[heap]]` slot `slot` to
/// `job::local_root` (see [`heap_slot_of`]).
pub(crate) fn heap_name(slot: usize) -> String {
    format!("ResourceDescriptorHeap[{slot}]")
}

/// The slot a [`heap_name`] names.
pub(crate) fn heap_slot_of(name: &str) -> Option<usize> {
    name.strip_prefix("ResourceDescriptorHeap[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// Writes every `data = { records = [...] }` form of `job`'s `[[resource]]` entries
/// into their bound buffers (after binding, when every entry has its address).
pub(crate) fn write_records(job: &JobFile, bound: &BoundJob) -> Result<(), JobError> {
    for (i, (e, b)) in job.resources.iter().zip(&bound.resources).enumerate() {
        let Some(records) = e.data.as_ref().and_then(|d| d.records.as_ref()) else {
            continue;
        };
        let name = resource_entry_name(i, e);
        let Storage::Buffer(memory) = &b.storage else {
            return Err(JobError::entry(
                &name,
                "`data.records` writes shader records into a buffer; this entry is not one",
            ));
        };
        for (k, r) in records.iter().enumerate() {
            let bytes = record_bytes(job, r.identifier.as_deref(), &r.local)
                .map_err(|m| JobError::entry(&name, format!("`data.records[{k}]`: {m}")))?;
            if !memory.write_bytes(r.offset, &bytes) {
                return Err(JobError::entry(
                    &name,
                    format!(
                        "`data.records[{k}]`: {} bytes at offset {} pass the buffer's {} bytes",
                        bytes.len(),
                        r.offset,
                        memory.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A record's bytes: the identifier (zeros for none), then each argument aligned to its
/// size (4 per constant, 8 for an address or a handle), as "Shader table memory
/// initialization" lays them out.
fn record_bytes(
    job: &JobFile,
    identifier_of: Option<&str>,
    local: &[RecordArgument],
) -> Result<Vec<u8>, String> {
    let mut out = match identifier_of {
        Some(n) => identifier(n).to_vec(),
        None => vec![0; SHADER_IDENTIFIER_SIZE as usize],
    };
    for (i, a) in local.iter().enumerate() {
        let at = format!("`local[{i}]`");
        match (&a.constants, &a.resource, a.heap) {
            (Some(c), None, None) => {
                if a.offset.is_some() {
                    return Err(format!("{at}: `offset` goes with `resource`"));
                }
                for (k, v) in c.iter().enumerate() {
                    let w = constant_word(*v).map_err(|m| format!("{at}: constants[{k}]: {m}"))?;
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            (None, Some(n), None) => {
                let index = job
                    .resources
                    .iter()
                    .position(|e| e.name.as_deref() == Some(n.as_str()))
                    .ok_or_else(|| format!("{at}: no `[[resource]]` is named \"{n}\""))?;
                let offset = a.offset.unwrap_or(0);
                if offset >= 1 << ADDRESS_SHIFT {
                    return Err(format!(
                        "{at}: `offset` {offset} is past the 2^40 bytes of a resource's addresses"
                    ));
                }
                out.resize(out.len().div_ceil(8) * 8, 0);
                out.extend_from_slice(&(resource_address(index) + offset).to_le_bytes());
            }
            (None, None, Some(slot)) => {
                if a.offset.is_some() {
                    return Err(format!("{at}: `offset` goes with `resource`"));
                }
                out.resize(out.len().div_ceil(8) * 8, 0);
                out.extend_from_slice(&heap_handle(slot).to_le_bytes());
            }
            _ => {
                return Err(format!(
                    "{at}: give exactly one of `constants`, `resource` (with `offset`) and `heap`"
                ));
            }
        }
    }
    Ok(out)
}

/// A constant's 32 bits (integers as their pattern, floats as `f32`).
pub(crate) fn constant_word(v: ConstantValue) -> Result<u32, String> {
    match v {
        ConstantValue::Integer(i) => u32::try_from(i)
            .or_else(|_| i32::try_from(i).map(|s| s as u32))
            .map_err(|_| format!("{i} does not fit 32 bits")),
        ConstantValue::Float(f) => Ok((f as f32).to_bits()),
    }
}

/// What a pipeline's identifier names (`job::rays` makes one per export and hit group).
#[derive(Debug, Clone)]
pub(crate) struct Named<T> {
    /// The export or hit group's name.
    pub name: String,
    /// Which table it belongs in: `ray generation`, `miss`, `hit group` or `callable`.
    pub table: &'static str,
    /// The program (or hit group) a record naming it runs.
    pub target: T,
    /// Its local root signature (and where it comes from, for messages), when it has
    /// one whose registers its programs read.
    pub signature: Option<(RootSignature, String)>,
}

/// A table's bytes, read from its buffer and checked against D3D12's rules.
pub(crate) struct TableBytes {
    /// `ray_generation_record`, `miss_table`, …
    pub key: &'static str,
    /// The buffer's name.
    pub buffer: String,
    /// The table's offset in the buffer.
    pub offset: u64,
    /// The table's bytes.
    pub bytes: Vec<u8>,
    /// The stride (`None` for the ray generation record).
    pub stride: Option<u64>,
}

/// Reads the range `key` gives from the named buffer, checking the start alignment,
/// the stride and that the range lies in the buffer (DXR spec "Shader tables",
/// "Shader record stride", `D3D12_DISPATCH_RAYS_DESC`).
pub(crate) fn read_range(
    key: &'static str,
    r: &TableRange,
    buffer_of: &dyn Fn(&str) -> Option<Memory>,
    strided: bool,
) -> Result<TableBytes, String> {
    let offset = r.offset.unwrap_or(0);
    if offset % TABLE_ALIGNMENT != 0 {
        return Err(format!(
            "`{key}.offset` {offset}: a shader table starts at a multiple of {TABLE_ALIGNMENT} bytes (D3D12_RAYTRACING_SHADER_TABLE_BYTE_ALIGNMENT; dxlane's buffers start at such an address)"
        ));
    }
    let stride = match (strided, r.stride) {
        (false, Some(_)) => {
            return Err(format!(
                "`{key}.stride`: the ray generation record is one record (D3D12_GPU_VIRTUAL_ADDRESS_RANGE, no stride)"
            ));
        }
        (false, None) => None,
        (true, None) => {
            return Err(format!("`{key}`: missing `stride` (StrideInBytes)"));
        }
        (true, Some(s)) => {
            if s % RECORD_ALIGNMENT != 0 || s > MAX_STRIDE {
                return Err(format!(
                    "`{key}.stride` {s}: a record stride is a multiple of {RECORD_ALIGNMENT} (D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT) from 0 to {MAX_STRIDE} bytes (DXR spec \"Shader record stride\")"
                ));
            }
            Some(s)
        }
    };
    let memory = buffer_of(&r.buffer).ok_or_else(|| {
        format!(
            "`{key}.buffer`: \"{}\" names no `[[resource]]` buffer",
            r.buffer
        )
    })?;
    let end = offset.checked_add(r.size);
    if end.is_none_or(|e| e > memory.len()) {
        return Err(format!(
            "`{key}`: bytes {offset} to {offset} + {} pass the end of \"{}\" ({} bytes)",
            r.size,
            r.buffer,
            memory.len()
        ));
    }
    let len = usize::try_from(r.size).map_err(|_| format!("`{key}.size` is too large"))?;
    let mut bytes = super::limits::zeroed_bytes(len)?;
    if !memory.read_bytes(offset, &mut bytes) {
        return Err(format!("`{key}`: cannot read \"{}\"", r.buffer));
    }
    Ok(TableBytes {
        key,
        buffer: r.buffer.clone(),
        offset,
        bytes,
        stride,
    })
}

/// A decoded record: its entry in the pipeline's list of names, and its local root
/// arguments in the job's typed form (empty when it takes none).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decoded {
    /// Index into the names given to [`decode_table`].
    pub named: usize,
    /// The record's key in messages.
    pub key: String,
    /// The arguments, one per parameter of the signature (none without one).
    pub args: Option<Vec<LocalArgumentEntry>>,
}

/// Decodes each record of `t` against the pipeline's `names` (those of `table`'s kind;
/// others are invalid records). `resource_name` gives the `[[resource]]` name at an
/// index; `heap_len` is the heap's length.
pub(crate) fn decode_table<T>(
    t: &TableBytes,
    table: &'static str,
    names: &[Named<T>],
    resource_name: &dyn Fn(usize) -> Option<String>,
    heap_len: usize,
) -> Result<ShaderTable<Decoded>, String> {
    let id = SHADER_IDENTIFIER_SIZE as u64;
    let size = t.bytes.len() as u64;
    let (count, zero_stride) = match t.stride {
        None | Some(0) => (u64::from(size >= id), t.stride.is_some()),
        // Records whose identifier lies within the table.
        Some(s) => (size.checked_sub(id).map_or(0, |r| r / s + 1), false),
    };
    if count > MAX_RECORDS {
        return Err(format!(
            "`{}`: {count} records; dxlane reads at most {MAX_RECORDS} from one table",
            t.key
        ));
    }
    let mut records = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = i * t.stride.unwrap_or(0);
        let key = format!(
            "{} record {i} (byte {} of \"{}\")",
            t.key,
            t.offset + at,
            t.buffer
        );
        let Some(ident) = slice(&t.bytes, at, id) else {
            break;
        };
        if ident.iter().all(|&b| b == 0) {
            records.push(TableRecord::Null);
            continue;
        }
        let found = names
            .iter()
            .position(|n| identifier(&n.name).as_slice() == ident);
        let Some(k) = found else {
            records.push(TableRecord::Invalid(format!(
                "{key}: its shader identifier names nothing in the pipeline"
            )));
            continue;
        };
        let n = &names[k];
        if n.table != table {
            records.push(TableRecord::Invalid(format!(
                "{key}: its shader identifier names the {} \"{}\", which a {table} record cannot run",
                n.table, n.name
            )));
            continue;
        }
        let args = match &n.signature {
            None => None,
            Some((sig, _)) => {
                match decode_arguments(&t.bytes, at, t.stride, sig, resource_name, heap_len) {
                    Ok(a) => Some(a),
                    Err(m) => {
                        records.push(TableRecord::Invalid(format!("{key}: {m}")));
                        continue;
                    }
                }
            }
        };
        records.push(TableRecord::Shader(Decoded {
            named: k,
            key,
            args,
        }));
    }
    Ok(ShaderTable {
        records,
        zero_stride,
    })
}

/// The bytes after the identifier of each of the first `count` records of `t`: to the
/// next record (a nonzero stride), else to the end of the range (what a program reading
/// the record's memory past its local root arguments would find there).
pub(crate) fn record_arguments(t: &TableBytes, count: usize) -> Vec<Vec<u8>> {
    let id = SHADER_IDENTIFIER_SIZE as u64;
    let len = t.bytes.len() as u64;
    (0..count as u64)
        .map(|i| {
            let at = i * t.stride.unwrap_or(0);
            let end = match t.stride {
                Some(s) if s > 0 => at.saturating_add(s).min(len),
                _ => len,
            };
            slice(&t.bytes, at + id, end.saturating_sub(at + id))
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        })
        .collect()
}

/// `len` bytes of `b` from `at`, when they are all there.
fn slice(b: &[u8], at: u64, len: u64) -> Option<&[u8]> {
    let s = usize::try_from(at).ok()?;
    let e = usize::try_from(at.checked_add(len)?).ok()?;
    b.get(s..e)
}

/// The local root arguments of the record at `at`, read by `sig`'s layout: root
/// constants as 32-bit words, root descriptors as addresses (a `[[resource]]` and an
/// offset), descriptor tables as handles (`[[heap]]` slots).
fn decode_arguments(
    bytes: &[u8],
    at: u64,
    stride: Option<u64>,
    sig: &RootSignature,
    resource_name: &dyn Fn(usize) -> Option<String>,
    heap_len: usize,
) -> Result<Vec<LocalArgumentEntry>, String> {
    let Some((layout, record_size)) = sig.local_arguments() else {
        return Err("its local root arguments pass the 4096-byte record".into());
    };
    if let Some(s) = stride
        && s != 0
        && u64::from(record_size) > s
    {
        return Err(format!(
            "the record takes {record_size} bytes, more than the stride {s} (DXR spec \"Shader record stride\": a nonzero stride is at least the largest record)"
        ));
    }
    let Some(rec) = slice(bytes, at, u64::from(record_size)) else {
        return Err(format!(
            "its {record_size} bytes (identifier and local root arguments) pass the table's size"
        ));
    };
    let mut out = Vec::with_capacity(layout.len());
    for l in &layout {
        let Some(p) = sig.parameters.get(l.parameter) else {
            continue;
        };
        let Some(b) = rec.get(l.offset as usize..(l.offset + l.size) as usize) else {
            continue;
        };
        let word8 = || {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[..8]);
            u64::from_le_bytes(w)
        };
        let at = format!(
            "parameter {} (bytes {}..{})",
            l.parameter,
            l.offset,
            l.offset + l.size
        );
        out.push(match &p.kind {
            RootParameterKind::Constants { .. } => LocalArgumentEntry {
                constants: Some(
                    b.chunks_exact(4)
                        .map(|c| {
                            ConstantValue::Integer(i64::from(u32::from_le_bytes([
                                c[0], c[1], c[2], c[3],
                            ])))
                        })
                        .collect(),
                ),
                ..Default::default()
            },
            RootParameterKind::Descriptor { .. } => {
                let va = word8();
                let (i, offset) = address_resource(va)
                    .and_then(|(i, o)| resource_name(i).map(|n| (n, o)))
                    .ok_or_else(|| {
                        format!("{at}: GPU virtual address 0x{va:016x} points into no named `[[resource]]`")
                    })?;
                LocalArgumentEntry {
                    resource: Some(i),
                    offset: Some(offset),
                    ..Default::default()
                }
            }
            RootParameterKind::Table { ranges } => {
                let h = word8();
                let (_, bounded, unbounded) =
                    super::local_root::table_layout(ranges).map_err(|m| format!("{at}: {m}"))?;
                let slot = h
                    .checked_sub(HEAP_HANDLE_BASE)
                    .filter(|d| d % HEAP_HANDLE_INCREMENT == 0)
                    .map(|d| d / HEAP_HANDLE_INCREMENT)
                    .filter(|s| s.saturating_add(u64::from(bounded)) <= heap_len as u64)
                    .ok_or_else(|| {
                        format!(
                            "{at}: GPU descriptor handle 0x{h:016x} with {bounded} descriptors is outside the heap's {heap_len} slots"
                        )
                    })?;
                // An unbounded last range runs to the end of the heap
                // (`D3D12_DESCRIPTOR_RANGE`).
                let total = if unbounded {
                    heap_len as u64 - slot
                } else {
                    u64::from(bounded)
                };
                let mut table_names = Vec::new();
                for d in 0..total {
                    table_names.push(heap_name((slot + d) as usize));
                }
                LocalArgumentEntry {
                    table: Some(table_names),
                    ..Default::default()
                }
            }
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // DXR spec "Shader identifier": 32 opaque bytes; dxlane's are never all zeros (a
    // NULL identifier) and differ between names.
    #[test]
    fn identifiers_are_tagged_and_distinct() {
        let a = identifier("raygen");
        let b = identifier("miss");
        assert_eq!(&a[..8], b"dxlaneID");
        assert_ne!(a, b);
        assert_eq!(a, identifier("raygen"));
        assert!(identifier("").iter().any(|&x| x != 0));
    }

    #[test]
    fn addresses_and_handles_round_trip() {
        assert_eq!(address_resource(resource_address(3) + 17), Some((3, 17)));
        assert_eq!(address_resource(12), None);
        assert_eq!(heap_handle(2) - heap_handle(0), 64);
        assert_eq!(heap_slot_of(&heap_name(7)), Some(7));
        assert_eq!(heap_slot_of("picture"), None);
    }
}
