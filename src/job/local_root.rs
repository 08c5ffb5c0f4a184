//! Local root signatures and the local root arguments of a ray-tracing pipeline's
//! shader records (DXR functional spec, "Local root signatures vs global root
//! signatures", "Shader record").
//!
//! Owns: a record's local root signature (the library's associated
//! `LocalRootSignature` subobject, or one the job declares with `local_root_signature`);
//! its `local = [...]` arguments checked against it; and the job's resources as that
//! record's programs see them — the global bindings, with every register the local
//! root signature declares bound to the record's arguments instead. Does not own:
//! resolving associations (`job::state_object`), the reflection check (`job::reflect`).
//!
//! # The job's form
//!
//! `local = [...]` holds one argument per parameter of the local root signature, in
//! parameter order (the order a shader record lays them out in):
//!
//! - root constants: `{ constants = [1, 2.5] }` — one value per 32-bit constant;
//!   integers are stored as their 32-bit pattern, floats as `f32`. The program reads
//!   them as constant buffer `b{register}`;
//! - a root descriptor (CBV, SRV or UAV, a GPU virtual address):
//!   `{ resource = "name", offset = 256 }` — a named `[[resource]]`'s memory from the
//!   byte offset on;
//! - a descriptor table (a heap handle): `{ table = ["a", "b"] }` — one named
//!   `[[resource]]` per descriptor of its ranges, in table order.
//!
//! `local_root_signature = [...]` declares one for a record whose export the
//! libraries give none: `{ constants = 2, reg = "b0" }`, `{ descriptor = "t1" }`
//! (the register's letter gives CBV, SRV or UAV), `{ table = ["u0", "t2"] }` (one
//! descriptor per register), each with an optional `space`.
//!
//! # Rules
//!
//! - An argument the local root signature does not declare, a parameter left without
//!   one, or an argument of another type than its parameter is an error naming the
//!   table entry and the parameter (D3D12 copies arguments by the layout; a record
//!   that does not match it is undefined).
//! - A record whose export has a local root signature from both the library and the
//!   job is refused (dxlane's choice: a job that declares one means it, and D3D's
//!   association rules would have picked one silently).
//! - A register that both the local root signature and a `[[resource]]` entry bind
//!   takes the local argument (dxlane's choice: D3D requires global and local root
//!   signatures not to overlap, `D3D12_LOCAL_ROOT_SIGNATURE`; the job's entries are not
//!   a global root signature, and letting the record win lets a job rebind one
//!   record's resources).
//! - Root SRV and UAV descriptors view raw or structured buffers, or an acceleration
//!   structure (D3D12 root descriptors: no typed buffers or textures); the offset
//!   must be a multiple of the element size (4 for raw buffers, the stride for
//!   structured ones), and of 4 for a CBV; an offset past the memory is refused.
//!   An acceleration structure's offset must be 0.
//! - A descriptor table's last range may be unbounded (`NumDescriptors` `UINT_MAX`;
//!   `D3D12_DESCRIPTOR_RANGE`: only the last range of a table can be): it then runs
//!   to the end of what the table is given — every further entry of the job's list, or,
//!   in a shader table in a buffer, every heap slot from the range's start to the end of
//!   the `[[heap]]` (D3D12: to the end of the descriptor heap). An unbounded range that
//!   is not the last, or with a range placed after its start, is refused. Each named
//!   entry must fit its range's register class.

use crate::container::rts0::{
    DescriptorRange, RegisterClass, RootParameter, RootParameterKind, RootSignature,
};
use crate::ir::ResourceClass;
use crate::resources::{BufferKind, BufferView, Descriptor, Memory};

use super::bind::{
    BoundEntry, BoundJob, EntryKind, EntryRef, Register, Storage, Table, Visibility,
};
use super::schema::{ConstantValue, LocalArgumentEntry, LocalParameterEntry};

/// The most descriptors a local descriptor table lists.
pub const MAX_TABLE_DESCRIPTORS: u32 = 4096;

/// A shader record's local root signature and its arguments, checked against each
/// other (not yet against the job's resources).
#[derive(Debug, Clone)]
pub(crate) struct LocalRecord {
    /// The table entry in messages: `miss[0]`, `hit_groups[1] ("name")`, `raygen`.
    pub key: String,
    /// The local root signature.
    pub signature: RootSignature,
    /// One argument per parameter.
    pub args: Vec<LocalArgumentEntry>,
}

fn class_of(c: RegisterClass) -> ResourceClass {
    match c {
        RegisterClass::Srv => ResourceClass::Srv,
        RegisterClass::Uav => ResourceClass::Uav,
        RegisterClass::Cbv => ResourceClass::Cbv,
        RegisterClass::Sampler => ResourceClass::Sampler,
    }
}

fn rts0_class(c: ResourceClass) -> RegisterClass {
    match c {
        ResourceClass::Srv => RegisterClass::Srv,
        ResourceClass::Uav => RegisterClass::Uav,
        ResourceClass::Cbv => RegisterClass::Cbv,
        ResourceClass::Sampler => RegisterClass::Sampler,
    }
}

/// A parameter in messages: `parameter 1 (SRV t1)`.
fn describe(i: usize, p: &RootParameter) -> String {
    let reg = |c: RegisterClass, r: u32, s: u32| {
        Register {
            class: class_of(c),
            index: r,
            space: s,
        }
        .to_string()
    };
    match &p.kind {
        RootParameterKind::Constants {
            register,
            space,
            count,
        } => format!(
            "parameter {i} ({count} root constants, {})",
            reg(RegisterClass::Cbv, *register, *space)
        ),
        RootParameterKind::Descriptor {
            class,
            register,
            space,
        } => format!(
            "parameter {i} (root {} {})",
            p.kind.name(),
            reg(*class, *register, *space)
        ),
        RootParameterKind::Table { ranges } => {
            let list: Vec<String> = ranges
                .iter()
                .map(|r| {
                    let first = reg(r.class, r.base_register, r.space);
                    if r.count == 1 {
                        first
                    } else if r.count == u32::MAX {
                        format!("{first} (unbounded)")
                    } else {
                        format!("{first} ({} registers)", r.count)
                    }
                })
                .collect();
            format!("parameter {i} (descriptor table: {})", list.join(", "))
        }
    }
}

/// The local root signature `params` declares (`local_root_signature`), for `key`.
pub(crate) fn job_signature(
    key: &str,
    params: &[LocalParameterEntry],
) -> Result<RootSignature, String> {
    let mut out = Vec::with_capacity(params.len());
    for (i, p) in params.iter().enumerate() {
        let at = format!("`{key}.local_root_signature[{i}]`");
        let space = p.space.unwrap_or(0);
        let reg = |text: &str| {
            Register::parse(text, space).ok_or_else(|| {
                format!("{at}: \"{text}\" is not a register (t, u, b or s and a number: \"t0\")")
            })
        };
        let given = [
            p.constants.is_some(),
            p.descriptor.is_some(),
            p.table.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(format!(
                "{at}: give exactly one of `constants` (with `reg`), `descriptor` and `table`"
            ));
        }
        let kind = if let Some(count) = p.constants {
            let r = p.reg.as_deref().ok_or_else(|| {
                format!("{at}: root constants need `reg` (their constant buffer: \"b0\")")
            })?;
            let r = reg(r)?;
            if r.class != ResourceClass::Cbv {
                return Err(format!(
                    "{at}: root constants are read as a constant buffer, so `reg` is a b register, not {r}"
                ));
            }
            if count == 0 {
                return Err(format!("{at}: `constants` is 0; declare at least one"));
            }
            RootParameterKind::Constants {
                register: r.index,
                space,
                count,
            }
        } else {
            if p.reg.is_some() {
                return Err(format!(
                    "{at}: `reg` goes with `constants`; a descriptor or table names its registers itself"
                ));
            }
            if let Some(d) = &p.descriptor {
                let r = reg(d)?;
                if r.class == ResourceClass::Sampler {
                    return Err(format!(
                        "{at}: a root descriptor is a CBV, SRV or UAV, not a sampler ({r}); samplers go in a table"
                    ));
                }
                RootParameterKind::Descriptor {
                    class: rts0_class(r.class),
                    register: r.index,
                    space,
                }
            } else {
                let names = p.table.as_deref().unwrap_or_default();
                if names.is_empty() {
                    return Err(format!("{at}: `table` is empty; list its registers"));
                }
                let mut ranges = Vec::with_capacity(names.len());
                for n in names {
                    let r = reg(n)?;
                    ranges.push(DescriptorRange {
                        class: rts0_class(r.class),
                        count: 1,
                        base_register: r.index,
                        space,
                        offset: u32::MAX,
                    });
                }
                let samplers = ranges
                    .iter()
                    .filter(|r| r.class == RegisterClass::Sampler)
                    .count();
                if samplers != 0 && samplers != ranges.len() {
                    return Err(format!(
                        "{at}: a descriptor table holds samplers or CBVs, SRVs and UAVs, not both (D3D12 descriptor heaps)"
                    ));
                }
                RootParameterKind::Table { ranges }
            }
        };
        out.push(RootParameter {
            visibility: 0,
            kind,
        });
    }
    Ok(RootSignature {
        version: 2,
        flags: 0,
        parameters: out,
        static_samplers: 0,
    })
}

/// Whether `shader` declares a register some parameter of `signature` binds.
pub(crate) fn reads_any(shader: &crate::ir::Shader, signature: &RootSignature) -> bool {
    let mut regs: Vec<(ResourceClass, u32, u64, u64)> = Vec::new();
    for p in &signature.parameters {
        match &p.kind {
            RootParameterKind::Constants {
                register, space, ..
            } => regs.push((ResourceClass::Cbv, *space, u64::from(*register), 1)),
            RootParameterKind::Descriptor {
                class,
                register,
                space,
            } => regs.push((class_of(*class), *space, u64::from(*register), 1)),
            RootParameterKind::Table { ranges } => {
                for r in ranges {
                    let n = if r.count == u32::MAX {
                        u64::from(u32::MAX)
                    } else {
                        u64::from(r.count)
                    };
                    regs.push((class_of(r.class), r.space, u64::from(r.base_register), n));
                }
            }
        }
    }
    shader.resources.iter().any(|r| {
        let n = if r.count == crate::ir::ResourceRange::UNBOUNDED {
            u64::from(u32::MAX)
        } else {
            u64::from(r.count)
        };
        let lo = u64::from(r.lower);
        regs.iter().any(|&(c, s, base, count)| {
            c == r.class && s == r.space && lo < base + count && base < lo + n
        })
    })
}

/// The argument's type in messages.
fn argument_kind(a: &LocalArgumentEntry) -> Result<&'static str, String> {
    let given: Vec<&str> = [
        ("constants", a.constants.is_some()),
        ("resource", a.resource.is_some()),
        ("table", a.table.is_some()),
    ]
    .into_iter()
    .filter(|(_, g)| *g)
    .map(|(k, _)| k)
    .collect();
    match given.as_slice() {
        [one] => Ok(one),
        [] => Err("give one of `constants`, `resource` (with `offset`) and `table`".into()),
        _ => Err(format!(
            "give one of `constants`, `resource` and `table`, not {}",
            given.join(" and ")
        )),
    }
}

/// Where each range of a table starts, the descriptors its bounded ranges hold (for an
/// unbounded last range: the descriptors before it), and whether the last range is
/// unbounded (refuses an unbounded range other than the last, a range placed after an
/// unbounded one's start, and more than [`MAX_TABLE_DESCRIPTORS`]).
pub(crate) fn table_layout(ranges: &[DescriptorRange]) -> Result<(Vec<u32>, u32, bool), String> {
    let mut starts = Vec::with_capacity(ranges.len());
    let mut next: u64 = 0;
    let mut total: u64 = 0;
    let mut unbounded = false;
    for (k, r) in ranges.iter().enumerate() {
        let start = if r.offset == u32::MAX {
            next
        } else {
            u64::from(r.offset)
        };
        if r.count == u32::MAX {
            if k + 1 != ranges.len() {
                return Err(format!(
                    "range {k} is unbounded and not the table's last range (D3D12_DESCRIPTOR_RANGE: only the last range can be unbounded)"
                ));
            }
            if start < total {
                return Err(format!(
                    "range {k} is unbounded from descriptor {start}, and an earlier range reaches descriptor {total}: they would overlap"
                ));
            }
            if start > u64::from(MAX_TABLE_DESCRIPTORS) {
                return Err(format!(
                    "range {k} starts at descriptor {start}; a job lists at most {MAX_TABLE_DESCRIPTORS} per table"
                ));
            }
            starts.push(start as u32);
            total = start;
            unbounded = true;
            continue;
        }
        let end = start + u64::from(r.count);
        if end > u64::from(MAX_TABLE_DESCRIPTORS) {
            return Err(format!(
                "range {k} ends at descriptor {end}; a job lists at most {MAX_TABLE_DESCRIPTORS} per table"
            ));
        }
        starts.push(start as u32);
        next = end;
        total = total.max(end);
    }
    Ok((starts, total as u32, unbounded))
}

/// Checks `args` against `signature` for the record `key` (see the module doc).
pub(crate) fn check_arguments(
    key: &str,
    from: &str,
    signature: &RootSignature,
    args: Option<&[LocalArgumentEntry]>,
) -> Result<Vec<LocalArgumentEntry>, String> {
    let args = args.unwrap_or_default();
    let params = &signature.parameters;
    if let Some(extra) = args.get(params.len()) {
        let kind = argument_kind(extra).unwrap_or("an argument");
        return Err(format!(
            "`{key}.local[{}]` ({kind}): {from} declares {} parameter{}, so the record has no argument {}",
            params.len(),
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            params.len()
        ));
    }
    for (i, p) in params.iter().enumerate() {
        let what = describe(i, p);
        let Some(a) = args.get(i) else {
            return Err(format!(
                "`{key}.local`: {from} declares {what}, which the record leaves unset (give `local = [...]` with one argument per parameter, in order)"
            ));
        };
        let at = format!("`{key}.local[{i}]`");
        let kind = argument_kind(a).map_err(|m| format!("{at}: {m}"))?;
        let want = match &p.kind {
            RootParameterKind::Constants { .. } => "constants",
            RootParameterKind::Descriptor { .. } => "resource",
            RootParameterKind::Table { .. } => "table",
        };
        if kind != want {
            return Err(format!(
                "{at}: gives `{kind}`, but {from}'s {what} takes `{want}`"
            ));
        }
        if a.offset.is_some() && kind != "resource" {
            return Err(format!(
                "{at}: `offset` goes with `resource` (a root descriptor)"
            ));
        }
        match &p.kind {
            RootParameterKind::Constants { count, .. } => {
                let n = a.constants.as_ref().map_or(0, Vec::len);
                if n as u64 != u64::from(*count) {
                    return Err(format!(
                        "{at}: gives {n} constants, but {from}'s {what} takes {count}"
                    ));
                }
            }
            RootParameterKind::Table { ranges } => {
                let (_, total, unbounded) =
                    table_layout(ranges).map_err(|m| format!("{at}: {what}: {m}"))?;
                let n = a.table.as_ref().map_or(0, Vec::len);
                if unbounded {
                    if (n as u64) < u64::from(total) || n as u64 > u64::from(MAX_TABLE_DESCRIPTORS)
                    {
                        return Err(format!(
                            "{at}: names {n} resources, but {from}'s {what} holds {total} descriptors before its unbounded range, and a job lists at most {MAX_TABLE_DESCRIPTORS}"
                        ));
                    }
                } else if n as u64 != u64::from(total) {
                    return Err(format!(
                        "{at}: names {n} resources, but {from}'s {what} holds {total} descriptors"
                    ));
                }
            }
            RootParameterKind::Descriptor { .. } => {}
        }
    }
    Ok(args.to_vec())
}

/// A constant's 32 bits.
fn constant_bits(v: ConstantValue) -> Result<u32, String> {
    match v {
        ConstantValue::Integer(i) => {
            if let Ok(u) = u32::try_from(i) {
                Ok(u)
            } else if let Ok(s) = i32::try_from(i) {
                Ok(s as u32)
            } else {
                Err(format!(
                    "{i} does not fit 32 bits (give -2147483648 to 4294967295)"
                ))
            }
        }
        ConstantValue::Float(f) => Ok((f as f32).to_bits()),
    }
}

/// The job's resources as the programs of `rec` see them: `global`'s `[[resource]]`
/// entries with every register the local root signature declares replaced by the
/// record's arguments (`named` finds a named `[[resource]]`).
pub(crate) fn record_view<'a>(
    rec: &LocalRecord,
    global: &BoundJob,
    named: &dyn Fn(&str) -> Option<&'a BoundEntry>,
) -> Result<BoundJob, String> {
    let mut local: Vec<BoundEntry> = Vec::new();
    let key = &rec.key;
    let find = |at: &str, n: &str| {
        named(n).ok_or_else(|| format!("{at}: no `[[resource]]` is named \"{n}\""))
    };
    for (i, (p, a)) in rec.signature.parameters.iter().zip(&rec.args).enumerate() {
        let at = format!("`{key}.local[{i}]`");
        match &p.kind {
            RootParameterKind::Constants {
                register, space, ..
            } => {
                let mut bytes = Vec::new();
                for (k, v) in a.constants.iter().flatten().enumerate() {
                    let b = constant_bits(*v).map_err(|m| format!("{at}: constants[{k}]: {m}"))?;
                    bytes.extend_from_slice(&b.to_le_bytes());
                }
                let memory = Memory::from_bytes(&bytes).map_err(|e| format!("{at}: {e}"))?;
                local.push(BoundEntry {
                    at: EntryRef {
                        table: Table::Resource,
                        index: global.resources.len(),
                    },
                    visibility: Visibility::All,
                    name: format!("{key}.local[{i}] (root constants)"),
                    reg: Some(Register {
                        class: ResourceClass::Cbv,
                        index: *register,
                        space: *space,
                    }),
                    kind: EntryKind::ConstantBuffer,
                    null: false,
                    descriptor: Descriptor::ConstantBuffer {
                        memory: memory.clone(),
                        offset: 0,
                        size: bytes.len() as u64,
                    },
                    storage: Storage::Buffer(memory),
                    counter: None,
                    output: None,
                    counter_output: None,
                    subresource_outputs: Vec::new(),
                });
            }
            RootParameterKind::Descriptor {
                class,
                register,
                space,
            } => {
                let n = a.resource.as_deref().unwrap_or_default();
                let e = find(&at, n)?;
                let offset = a.offset.unwrap_or(0);
                let reg = Register {
                    class: class_of(*class),
                    index: *register,
                    space: *space,
                };
                let (kind, descriptor) = root_descriptor(e, *class, offset)
                    .map_err(|m| format!("{at}: \"{n}\" ({}): {m}", e.name))?;
                local.push(BoundEntry {
                    name: format!("{key}.local[{i}] (\"{n}\")"),
                    reg: Some(reg),
                    kind,
                    descriptor,
                    visibility: Visibility::All,
                    output: None,
                    counter_output: None,
                    subresource_outputs: Vec::new(),
                    counter: None,
                    ..e.clone()
                });
            }
            RootParameterKind::Table { ranges } => {
                let (starts, _, _) = table_layout(ranges).map_err(|m| format!("{at}: {m}"))?;
                let names = a.table.as_deref().unwrap_or_default();
                for (r, start) in ranges.iter().zip(starts) {
                    // An unbounded range holds every entry from its start on.
                    let count = if r.count == u32::MAX {
                        (names.len() as u32).saturating_sub(start)
                    } else {
                        r.count
                    };
                    for k in 0..count {
                        let slot = (start + k) as usize;
                        let Some(n) = names.get(slot) else { continue };
                        let e = find(&format!("{at}: table[{slot}]"), n)?;
                        let reg = Register {
                            class: class_of(r.class),
                            index: r.base_register.saturating_add(k),
                            space: r.space,
                        };
                        if !e.kind.fits_class(reg.class) {
                            return Err(format!(
                                "{at}: table[{slot}]: \"{n}\" ({}) is {}, which a descriptor for {reg} cannot view",
                                e.name,
                                e.kind.describe()
                            ));
                        }
                        local.push(BoundEntry {
                            name: format!("{key}.local[{i}] table[{slot}] (\"{n}\")"),
                            reg: Some(reg),
                            visibility: Visibility::All,
                            output: None,
                            counter_output: None,
                            subresource_outputs: Vec::new(),
                            ..e.clone()
                        });
                    }
                }
            }
        }
    }
    let mut out = BoundJob {
        resources: global
            .resources
            .iter()
            .filter(|g| !local.iter().any(|l| l.reg.is_some() && l.reg == g.reg))
            .cloned()
            .collect(),
        heap: global.heap.clone(),
        sampler_heap: global.sampler_heap.clone(),
    };
    out.resources.extend(local);
    Ok(out)
}

/// The kind and descriptor of a root descriptor of `class` at `offset` bytes into
/// `e`'s memory (see the module doc's rules).
fn root_descriptor(
    e: &BoundEntry,
    class: RegisterClass,
    offset: u64,
) -> Result<(EntryKind, Descriptor), String> {
    if e.null {
        return Ok((e.kind, e.descriptor.clone()));
    }
    if e.kind == EntryKind::AccelerationStructure {
        if class != RegisterClass::Srv {
            return Err("an acceleration structure is read through an SRV only".into());
        }
        if offset != 0 {
            return Err(format!(
                "`offset` {offset}: an acceleration structure's address is its start (give 0)"
            ));
        }
        return Ok((e.kind, e.descriptor.clone()));
    }
    let Storage::Buffer(memory) = &e.storage else {
        return Err(format!(
            "is {}; a root descriptor is the address of buffer memory",
            e.kind.describe()
        ));
    };
    let len = memory.len();
    if offset >= len {
        return Err(format!("`offset` {offset} is not inside its {len} bytes"));
    }
    match class {
        RegisterClass::Cbv => {
            if offset % 4 != 0 {
                return Err(format!(
                    "`offset` {offset}: a CBV's address is a multiple of 4"
                ));
            }
            Ok((
                EntryKind::ConstantBuffer,
                Descriptor::ConstantBuffer {
                    memory: memory.clone(),
                    offset,
                    size: len - offset,
                },
            ))
        }
        _ => {
            let (kind, size) = match e.kind {
                EntryKind::RawBuffer => (BufferKind::Raw, 4u64),
                EntryKind::StructuredBuffer { stride } => {
                    (BufferKind::Structured { stride }, u64::from(stride.max(1)))
                }
                k => {
                    return Err(format!(
                        "is {}; a root SRV or UAV views a raw or structured buffer (D3D12 root descriptors)",
                        k.describe()
                    ));
                }
            };
            if offset % size != 0 {
                return Err(format!(
                    "`offset` {offset} is not a multiple of the element size {size} (dxlane views a root descriptor's buffer from a whole element)"
                ));
            }
            Ok((
                e.kind,
                Descriptor::Buffer {
                    view: BufferView {
                        memory: memory.clone(),
                        kind,
                        first_element: offset / size,
                        num_elements: (len - offset) / size,
                    },
                    counter: None,
                },
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constants(n: usize) -> LocalArgumentEntry {
        LocalArgumentEntry {
            constants: Some(vec![ConstantValue::Integer(1); n]),
            ..Default::default()
        }
    }

    /// DXR spec "Shader record": the arguments follow the local root signature's
    /// parameters one for one, each of its parameter's type.
    #[test]
    fn arguments_match_the_parameters() {
        let sig = job_signature(
            "miss[0]",
            &[
                LocalParameterEntry {
                    constants: Some(2),
                    reg: Some("b0".into()),
                    ..Default::default()
                },
                LocalParameterEntry {
                    descriptor: Some("t1".into()),
                    ..Default::default()
                },
            ],
        )
        .unwrap();
        let res = LocalArgumentEntry {
            resource: Some("buf".into()),
            ..Default::default()
        };
        let from = "the job's local_root_signature";
        check_arguments("miss[0]", from, &sig, Some(&[constants(2), res.clone()])).unwrap();
        let e = check_arguments("miss[0]", from, &sig, Some(&[constants(2)])).unwrap_err();
        assert!(
            e.contains("`miss[0].local`")
                && e.contains("parameter 1 (root SRV t1)")
                && e.contains("unset"),
            "{e}"
        );
        let e =
            check_arguments("miss[0]", from, &sig, Some(&[res.clone(), res.clone()])).unwrap_err();
        assert!(
            e.contains("`miss[0].local[0]`: gives `resource`") && e.contains("takes `constants`"),
            "{e}"
        );
        let e =
            check_arguments("miss[0]", from, &sig, Some(&[constants(3), res.clone()])).unwrap_err();
        assert!(
            e.contains("gives 3 constants") && e.contains("takes 2"),
            "{e}"
        );
        let e = check_arguments(
            "miss[0]",
            from,
            &sig,
            Some(&[constants(2), res.clone(), constants(1)]),
        )
        .unwrap_err();
        assert!(
            e.contains("`miss[0].local[2]`") && e.contains("declares 2 parameters"),
            "{e}"
        );
        let both = LocalArgumentEntry {
            table: Some(vec!["a".into()]),
            ..constants(2)
        };
        let e = check_arguments("miss[0]", from, &sig, Some(&[both, res])).unwrap_err();
        assert!(e.contains("not constants and table"), "{e}");
    }

    /// The job's declared parameters: one of each form, registers of the right class.
    #[test]
    fn job_signatures_are_checked() {
        let bad = |p: LocalParameterEntry| job_signature("raygen", &[p]).unwrap_err();
        let e = bad(LocalParameterEntry {
            constants: Some(1),
            reg: Some("t0".into()),
            ..Default::default()
        });
        assert!(
            e.contains("`raygen.local_root_signature[0]`") && e.contains("b register"),
            "{e}"
        );
        let e = bad(LocalParameterEntry {
            table: Some(vec!["s0".into(), "t0".into()]),
            ..Default::default()
        });
        assert!(e.contains("samplers or CBVs"), "{e}");
        let e = bad(LocalParameterEntry::default());
        assert!(e.contains("exactly one"), "{e}");
        let sig = job_signature(
            "raygen",
            &[LocalParameterEntry {
                table: Some(vec!["u0".into(), "t3".into()]),
                space: Some(2),
                ..Default::default()
            }],
        )
        .unwrap();
        // DXR spec "Shader table memory initialization": a table's handle is 8 bytes,
        // after the 32-byte identifier.
        let (args, size) = sig.local_arguments().unwrap();
        assert_eq!((args[0].offset, args[0].size, size), (32, 8, 40));
    }

    fn raw_entry(bytes: u64) -> BoundEntry {
        let memory = Memory::zeroed(bytes).unwrap();
        BoundEntry {
            at: EntryRef {
                table: Table::Resource,
                index: 0,
            },
            visibility: Visibility::All,
            name: "[[resource]] #1 (\"data\")".into(),
            reg: None,
            kind: EntryKind::RawBuffer,
            null: false,
            descriptor: Descriptor::Buffer {
                view: BufferView::whole(memory.clone(), BufferKind::Raw),
                counter: None,
            },
            storage: Storage::Buffer(memory),
            counter: None,
            output: None,
            counter_output: None,
            subresource_outputs: Vec::new(),
        }
    }

    /// D3D12 root descriptors: a GPU virtual address into buffer memory, viewed from
    /// the offset on; dxlane's offset rules (inside the memory, a whole element).
    #[test]
    fn root_descriptors_view_from_the_offset() {
        let e = raw_entry(64);
        let (kind, d) = root_descriptor(&e, RegisterClass::Uav, 16).unwrap();
        assert_eq!(kind, EntryKind::RawBuffer);
        let Descriptor::Buffer { view, .. } = d else {
            panic!("not a buffer view")
        };
        assert_eq!((view.first_element, view.num_elements), (4, 12));
        let (kind, d) = root_descriptor(&e, RegisterClass::Cbv, 8).unwrap();
        assert_eq!(kind, EntryKind::ConstantBuffer);
        let Descriptor::ConstantBuffer { offset, size, .. } = d else {
            panic!("not a constant buffer view")
        };
        assert_eq!((offset, size), (8, 56));
        let e6 = root_descriptor(&e, RegisterClass::Srv, 6).unwrap_err();
        assert!(e6.contains("multiple of the element size 4"), "{e6}");
        let past = root_descriptor(&e, RegisterClass::Srv, 64).unwrap_err();
        assert!(past.contains("not inside its 64 bytes"), "{past}");
    }

    /// Descriptor tables: one named entry per descriptor of the ranges (an explicit
    /// range offset places a range, `D3D12_DESCRIPTOR_RANGE::OffsetInDescriptorsFromTableStart`);
    /// an unbounded range is refused; each entry must fit its range's register class.
    #[test]
    fn tables_take_one_entry_per_descriptor() {
        let range = |class, count, base_register, offset| DescriptorRange {
            class,
            count,
            base_register,
            space: 0,
            offset,
        };
        let (starts, total, unbounded) = table_layout(&[
            range(RegisterClass::Srv, 2, 0, u32::MAX),
            range(RegisterClass::Uav, 1, 0, 5),
        ])
        .unwrap();
        assert_eq!((starts, total, unbounded), (vec![0, 5], 6, false));
        // D3D12_DESCRIPTOR_RANGE: only the last range can be unbounded.
        let e = table_layout(&[
            range(RegisterClass::Srv, u32::MAX, 0, u32::MAX),
            range(RegisterClass::Uav, 1, 0, u32::MAX),
        ])
        .unwrap_err();
        assert!(
            e.contains("range 0 is unbounded and not the table's last"),
            "{e}"
        );
        assert_eq!(
            table_layout(&[
                range(RegisterClass::Uav, 1, 0, u32::MAX),
                range(RegisterClass::Srv, u32::MAX, 0, u32::MAX),
            ])
            .unwrap(),
            (vec![0, 1], 1, true)
        );
        let sig = RootSignature {
            version: 2,
            flags: 0,
            parameters: vec![RootParameter {
                visibility: 0,
                kind: RootParameterKind::Table {
                    ranges: vec![range(RegisterClass::Srv, 2, 3, u32::MAX)],
                },
            }],
            static_samplers: 0,
        };
        let one = LocalArgumentEntry {
            table: Some(vec!["data".into()]),
            ..Default::default()
        };
        let e = check_arguments("callable[1]", "it", &sig, Some(std::slice::from_ref(&one)))
            .unwrap_err();
        assert!(
            e.contains("`callable[1].local[0]`: names 1 resources, but it's parameter 0 (descriptor table: t3 (2 registers)) holds 2 descriptors"),
            "{e}"
        );
        // A raw buffer fits t registers, not a sampler's.
        let data = raw_entry(16);
        let named = |n: &str| (n == "data").then_some(&data);
        let two = LocalArgumentEntry {
            table: Some(vec!["data".into(), "data".into()]),
            ..Default::default()
        };
        let rec = LocalRecord {
            key: "callable[1]".into(),
            signature: sig.clone(),
            args: vec![two.clone()],
        };
        let view = record_view(&rec, &BoundJob::default(), &named).unwrap();
        let regs: Vec<String> = view
            .resources
            .iter()
            .map(|e| e.reg.unwrap().to_string())
            .collect();
        assert_eq!(regs, ["t3", "t4"]);
        let mut samplers = sig;
        samplers.parameters[0].kind = RootParameterKind::Table {
            ranges: vec![range(RegisterClass::Sampler, 2, 0, u32::MAX)],
        };
        let rec = LocalRecord {
            key: "callable[1]".into(),
            signature: samplers,
            args: vec![two],
        };
        let e = record_view(&rec, &BoundJob::default(), &named).unwrap_err();
        assert!(
            e.contains("`callable[1].local[0]`: table[0]: \"data\"") && e.contains("cannot view"),
            "{e}"
        );
    }

    /// An unbounded last range (`D3D12_DESCRIPTOR_RANGE::NumDescriptors` `UINT_MAX`)
    /// holds every entry the job lists from its start on, at consecutive registers;
    /// the bounded ranges before it must be given whole.
    #[test]
    fn an_unbounded_range_takes_every_further_entry() {
        let range = |class, count, base_register| DescriptorRange {
            class,
            count,
            base_register,
            space: 0,
            offset: u32::MAX,
        };
        let sig = RootSignature {
            version: 2,
            flags: 0,
            parameters: vec![RootParameter {
                visibility: 0,
                kind: RootParameterKind::Table {
                    ranges: vec![
                        range(RegisterClass::Srv, 1, 0),
                        range(RegisterClass::Srv, u32::MAX, 4),
                    ],
                },
            }],
            static_samplers: 0,
        };
        let data = raw_entry(16);
        let named = |n: &str| (n == "data").then_some(&data);
        let table = |n: usize| LocalArgumentEntry {
            table: Some(vec!["data".into(); n]),
            ..Default::default()
        };
        for n in [1, 4] {
            check_arguments("miss[0]", "it", &sig, Some(&[table(n)])).unwrap();
            let rec = LocalRecord {
                key: "miss[0]".into(),
                signature: sig.clone(),
                args: vec![table(n)],
            };
            let view = record_view(&rec, &BoundJob::default(), &named).unwrap();
            let regs: Vec<String> = view
                .resources
                .iter()
                .map(|e| e.reg.unwrap().to_string())
                .collect();
            let want: Vec<String> = std::iter::once("t0".to_string())
                .chain((0..n - 1).map(|k| format!("t{}", 4 + k)))
                .collect();
            assert_eq!(regs, want);
        }
        let e = check_arguments("miss[0]", "it", &sig, Some(&[table(0)])).unwrap_err();
        assert!(
            e.contains("holds 1 descriptors before its unbounded range"),
            "{e}"
        );
    }

    /// Root constants bind as a constant buffer of their bits, shadowing a global
    /// binding of the same register.
    #[test]
    fn constants_shadow_the_global_register() {
        let sig = job_signature(
            "raygen",
            &[LocalParameterEntry {
                constants: Some(2),
                reg: Some("b0".into()),
                ..Default::default()
            }],
        )
        .unwrap();
        let rec = LocalRecord {
            key: "raygen".into(),
            signature: sig,
            args: vec![LocalArgumentEntry {
                constants: Some(vec![ConstantValue::Integer(-1), ConstantValue::Float(1.5)]),
                ..Default::default()
            }],
        };
        let memory = Memory::from_bytes(&[0; 16]).unwrap();
        let global_b0 = BoundEntry {
            at: EntryRef {
                table: Table::Resource,
                index: 0,
            },
            visibility: Visibility::All,
            name: "[[resource]] #1 (b0)".into(),
            reg: Register::parse("b0", 0),
            kind: EntryKind::ConstantBuffer,
            null: false,
            descriptor: Descriptor::ConstantBuffer {
                memory: memory.clone(),
                offset: 0,
                size: 16,
            },
            storage: Storage::Buffer(memory),
            counter: None,
            output: None,
            counter_output: None,
            subresource_outputs: Vec::new(),
        };
        let global = BoundJob {
            resources: vec![global_b0],
            ..Default::default()
        };
        let view = record_view(&rec, &global, &|_| None).unwrap();
        assert_eq!(view.resources.len(), 1);
        let e = &view.resources[0];
        assert_eq!(e.name, "raygen.local[0] (root constants)");
        let Storage::Buffer(m) = &e.storage else {
            panic!("not a buffer")
        };
        let mut want = u32::MAX.to_le_bytes().to_vec();
        want.extend_from_slice(&1.5f32.to_bits().to_le_bytes());
        assert_eq!(m.to_bytes(), want);
    }
}
