//! Root parameters (`RuntimeSettings: DirectX: RootParameters`) bound as the suite's
//! Direct3D 12 device binds them (`lib/API/DX/Device.cpp`, `createComputeCommands`;
//! `docs/RootSignatures.md` in `llvm/offload-test-suite`).
//!
//! Owns: matching each root parameter of the file with the program's root signature
//! (its `RTS0` part, read by `container::rts0`), and making root constants and root
//! descriptors into the job's resources at the registers the root signature gives.
//! Does not own: descriptor tables (their resources are the descriptor sets, bound by
//! `run` at their `DirectXBinding`s), running (`job`).
//!
//! Rules, with their source:
//!
//! - The file's parameters are the root signature's, in order: parameter `i` of the file
//!   is set at root parameter index `i` (`Device.cpp` counts every kind). The registers
//!   are not in the file: they are the root signature's, which the program carries in
//!   its `RTS0` part (DXC writes it from `[RootSignature(...)]`; `Device.cpp` uses the
//!   one in the program — the vertex program's for a raster pipeline — and builds tables
//!   only when there is none). A `Constant` or `RootDescriptor` parameter with no root
//!   signature in the program, a file with more parameters than the root signature, or
//!   a parameter whose kind differs from the root signature's at that index is refused,
//!   naming the parameter: D3D12 rejects setting it.
//! - An explicit list has one `DescriptorTable` per descriptor set (`Pipeline.cpp`).
//! - `Constant`: the buffer's bytes as 32-bit values (`size / 4`), written at the running
//!   count of values set by earlier `Constant` parameters (`Device.cpp` passes that count
//!   as `DestOffsetIn32BitValues`); they must fit the root signature's
//!   `Num32BitValues`. The program reads them as the constant buffer at the root
//!   signature's register and space; values not set read 0. A buffer array is refused.
//! - `RootDescriptor`: a buffer bound by its address (`SetComputeRoot…View`): a
//!   `ConstantBuffer` at a root CBV, a `StructuredBuffer` or `ByteAddressBuffer` at a
//!   root SRV, an `RWStructuredBuffer` or `RWByteAddressBuffer` at a root UAV. D3D12's
//!   root descriptors are raw or structured buffers only — no typed views and no
//!   textures (`Pipeline.cpp`: "Root descriptors must be raw resource types"), and no
//!   UAV counters. A root descriptor has no view, hence no bounds of its own: D3D12
//!   leaves an access past the buffer undefined; dxlane bounds it by the buffer's bytes
//!   (reads 0, drops writes). A structured buffer's stride is the buffer's `Stride`
//!   (else channels × element size). UAVs are read back into the pipeline, as
//!   `Device.cpp` reads back its root resources.
//! - Root parameters are set in raster pipelines too, in the same order, though the
//!   suite's device sets only the first descriptor table there: a program that reads a
//!   root constant in a draw expects it set.

use toml::{Table, Value};

use super::pipeline::{Pipeline, RootParameter};
use super::run::{Held, ResourceKind, resource_entry};
use crate::container::rts0::{self, RegisterClass, RootParameterKind, RootSignature};
use crate::container::{Container, FourCc};
use crate::ir::ResourceClass;
use crate::job::Register;

/// One root constant or root descriptor made into a job resource.
pub(super) struct RootBinding {
    /// The job's `[[resource]]` entry.
    pub entry: Table,
    /// The register it is bound at.
    pub reg: Register,
    /// The buffer to read back into after the run (root descriptors), as an index into
    /// the held buffers.
    pub read_back: Option<usize>,
    /// The line of the file it comes from.
    pub line: usize,
}

/// The line of the `n`-th (from 0) `- Kind:` item under `RootParameters:` in `text`.
fn line_of_parameter(text: &str, n: usize) -> usize {
    let Some(start) = text
        .lines()
        .position(|l| l.trim_start().starts_with("RootParameters:"))
    else {
        return 0;
    };
    text.lines()
        .enumerate()
        .skip(start + 1)
        .filter(|(_, l)| l.trim_start().starts_with("- Kind:"))
        .nth(n)
        .map_or(start + 1, |(i, _)| i + 1)
}

/// The root signature the program file `program` carries, if any.
fn root_signature(program: &std::path::Path) -> Result<Option<RootSignature>, String> {
    let bytes = crate::job::paths::read_input(
        program,
        crate::job::limits::MAX_PROGRAM_BYTES,
        "the largest program a job may load",
    )?;
    let c = Container::parse(&bytes).map_err(|e| format!("{}: {e}", program.display()))?;
    match c.part(FourCc(*b"RTS0")) {
        None => Ok(None),
        Some(part) => rts0::parse(part.data)
            .map(Some)
            .map_err(|e| format!("{}: {e}", program.display())),
    }
}

/// The root constants and root descriptors of `p`, bound at the registers of the root
/// signature in `program` (the compute or vertex program's file); errors carry the line
/// they point at in `text`.
pub(super) fn bind(
    p: &Pipeline,
    program: &std::path::Path,
    held: &[Held],
    text: &str,
) -> Result<Vec<RootBinding>, (usize, String)> {
    let params: &[RootParameter] = p
        .runtime_settings
        .as_ref()
        .and_then(|r| r.direct_x.as_ref())
        .map(|d| d.root_parameters.as_slice())
        .unwrap_or_default();
    let field = |i: usize| format!("`RuntimeSettings: DirectX: RootParameters[{i}]`");
    let mut tables = 0usize;
    for (i, param) in params.iter().enumerate() {
        let line = line_of_parameter(text, i);
        let (name, resource) = (param.name.is_some(), param.resource.is_some());
        match (param.kind.as_str(), name, resource) {
            ("DescriptorTable", false, false) => tables += 1,
            ("Constant", true, false) | ("RootDescriptor", false, true) => {}
            ("DescriptorTable" | "Constant" | "RootDescriptor", ..) => {
                return Err((
                    line,
                    format!(
                        "{}: `Kind: {}` takes {}",
                        field(i),
                        param.kind,
                        match param.kind.as_str() {
                            "Constant" =>
                                "a `Name` (the buffer holding its values) and no `Resource`",
                            "RootDescriptor" => "a `Resource` (`Name` and `Kind`) and no `Name`",
                            _ => "no `Name` or `Resource`",
                        }
                    ),
                ));
            }
            (other, ..) => {
                return Err((
                    line,
                    format!(
                        "{}: `Kind: {other}`; give Constant, DescriptorTable or RootDescriptor",
                        field(i)
                    ),
                ));
            }
        }
    }
    if !params.is_empty() && tables != p.descriptor_sets.len() {
        return Err((
            line_of_parameter(text, 0),
            format!(
                "`RuntimeSettings: DirectX: RootParameters`: {tables} `DescriptorTable` parameter(s) for {} descriptor set(s); give one per set",
                p.descriptor_sets.len()
            ),
        ));
    }
    if params.iter().all(|r| r.kind == "DescriptorTable") {
        return Ok(Vec::new());
    }
    let sig = root_signature(program).map_err(|m| (0, m))?;
    let Some(sig) = sig else {
        let i = params
            .iter()
            .position(|r| r.kind != "DescriptorTable")
            .unwrap_or(0);
        return Err((
            line_of_parameter(text, i),
            format!(
                "{}: `{}` is bound at the register the root signature gives it, and {} carries no root signature (no `RTS0` part: compile it with a `[RootSignature(...)]` attribute)",
                field(i),
                params[i].kind,
                program.display()
            ),
        ));
    };
    if params.len() > sig.parameters.len() {
        return Err((
            line_of_parameter(text, sig.parameters.len()),
            format!(
                "`RuntimeSettings: DirectX: RootParameters`: {} parameters, and the program's root signature has {}",
                params.len(),
                sig.parameters.len()
            ),
        ));
    }
    let mut out = Vec::new();
    let mut constant_offset = 0u64;
    for (i, (param, root)) in params.iter().zip(&sig.parameters).enumerate() {
        let line = line_of_parameter(text, i);
        let err = |m: String| (line, format!("{}: {m}", field(i)));
        let mismatch = || {
            err(format!(
                "`Kind: {}` where the program's root signature has a {} parameter",
                param.kind,
                root.kind.name()
            ))
        };
        let find = |name: &str| {
            held.iter()
                .position(|h| h.buffer.name == name)
                .ok_or_else(|| err(format!("no buffer named `{name}` in `Buffers`")))
        };
        match param.kind.as_str() {
            "DescriptorTable" => {
                if !matches!(root.kind, RootParameterKind::Table { .. }) {
                    return Err(mismatch());
                }
            }
            "Constant" => {
                let RootParameterKind::Constants {
                    register,
                    space,
                    count: values,
                } = root.kind
                else {
                    return Err(mismatch());
                };
                let name = param.name.as_deref().unwrap_or_default();
                let h = &held[find(name)?];
                if h.buffer.array_size != 1 {
                    return Err(err(format!(
                        "`{name}` is an array; a root constant cannot refer to a resource array"
                    )));
                }
                let data = h.blocks.first().map(Vec::as_slice).unwrap_or_default();
                let n = data.len() as u64 / 4;
                if constant_offset + n > u64::from(values) {
                    return Err(err(format!(
                        "`{name}` holds {n} 32-bit values, set from value {constant_offset}; the root signature's constants at b{register} hold {values}"
                    )));
                }
                // Values not set read 0; constant buffers are read in 16-byte rows.
                let size = (u64::from(values) * 4).div_ceil(16).max(1) * 16;
                let mut bytes = vec![0u8; size as usize];
                let at = constant_offset as usize * 4;
                bytes[at..at + n as usize * 4].copy_from_slice(&data[..n as usize * 4]);
                constant_offset += n;
                let reg = Register {
                    class: ResourceClass::Cbv,
                    index: register,
                    space,
                };
                let mut t = Table::new();
                t.insert("reg".into(), Value::String(format!("b{register}")));
                if space != 0 {
                    t.insert("space".into(), Value::Integer(space.into()));
                }
                t.insert("kind".into(), Value::String("cbuffer".into()));
                t.insert("size".into(), Value::Integer(size as i64));
                let mut d = Table::new();
                d.insert(
                    "hex".into(),
                    Value::String(bytes.iter().map(|b| format!("{b:02x}")).collect()),
                );
                t.insert("data".into(), Value::Table(d));
                out.push(RootBinding {
                    entry: t,
                    reg,
                    read_back: None,
                    line,
                });
            }
            _ => {
                let r = param.resource.as_ref().ok_or_else(mismatch)?;
                let kind = ResourceKind::parse(&r.kind).map_err(&err)?;
                let (class, register, space) = match (kind, &root.kind) {
                    (
                        ResourceKind::ConstantBuffer,
                        RootParameterKind::Descriptor {
                            class: RegisterClass::Cbv,
                            register,
                            space,
                        },
                    ) => (ResourceClass::Cbv, *register, *space),
                    (
                        ResourceKind::StructuredBuffer | ResourceKind::ByteAddressBuffer,
                        RootParameterKind::Descriptor {
                            class: RegisterClass::Srv,
                            register,
                            space,
                        },
                    ) => (ResourceClass::Srv, *register, *space),
                    (
                        ResourceKind::RwStructuredBuffer | ResourceKind::RwByteAddressBuffer,
                        RootParameterKind::Descriptor {
                            class: RegisterClass::Uav,
                            register,
                            space,
                        },
                    ) => (ResourceClass::Uav, *register, *space),
                    (
                        ResourceKind::ConstantBuffer
                        | ResourceKind::StructuredBuffer
                        | ResourceKind::ByteAddressBuffer
                        | ResourceKind::RwStructuredBuffer
                        | ResourceKind::RwByteAddressBuffer,
                        _,
                    ) => {
                        return Err(err(format!(
                            "`Resource: Kind: {}` where the program's root signature has a {} parameter",
                            r.kind,
                            root.kind.name()
                        )));
                    }
                    _ => {
                        return Err(err(format!(
                            "`Resource: Kind: {}`: a root descriptor is a constant, structured or raw buffer; D3D12 has no typed or texture root views (bind it in a descriptor table)",
                            r.kind
                        )));
                    }
                };
                let bi = find(&r.name)?;
                let h = &held[bi];
                if h.buffer.array_size != 1 {
                    return Err(err(format!(
                        "`{}` is an array; a root descriptor cannot refer to a resource array",
                        r.name
                    )));
                }
                let reg = Register {
                    class,
                    index: register,
                    space,
                };
                let view = super::pipeline::Resource {
                    name: r.name.clone(),
                    kind: r.kind.clone(),
                    has_counter: false,
                    direct_x_binding: None,
                    vulkan_binding: None,
                    heap_index: None,
                    tiles_mapped: None,
                    is_reserved: None,
                };
                let block = h.blocks.first().map(Vec::as_slice).unwrap_or_default();
                let entry = resource_entry(&h.buffer, block, kind, &view, reg).map_err(&err)?;
                out.push(RootBinding {
                    entry,
                    reg,
                    read_back: Some(bi),
                    line,
                });
            }
        }
    }
    Ok(out)
}
