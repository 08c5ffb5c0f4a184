//! `RTS0`: a serialized root signature — the bytes of a container's `RTS0` part and of
//! a DXIL library's `GlobalRootSignature` / `LocalRootSignature` subobjects — and the
//! layout of a local root signature's arguments in a shader record.
//!
//! Owns: decoding versions 1.0, 1.1 and 1.2 (root constants, root CBV / SRV / UAV
//! descriptors, descriptor tables and their ranges; static samplers are counted, not
//! read) and the shader-record layout rule. Does not own: binding anything (the job and
//! the pipeline do).
//!
//! # Layout (little-endian; `D3D12_ROOT_SIGNATURE_DESC` serialized, as
//! DirectXShaderCompiler's `DxilRootSignature` writes it)
//!
//! | item | words |
//! |---|---|
//! | header (24 bytes) | version (1: 1.0, 2: 1.1, 3: 1.2), parameter count, parameters' offset, static sampler count, static samplers' offset, flags |
//! | parameter (12 bytes) | type (0 table, 1 constants, 2 CBV, 3 SRV, 4 UAV), shader visibility, payload offset |
//! | constants | register, space, 32-bit value count |
//! | descriptor | register, space (1.1 and later: and flags) |
//! | table | range count, ranges' offset |
//! | range (1.0: 20 bytes; later: 24) | type (0 SRV, 1 UAV, 2 CBV, 3 sampler), descriptor count (`u32::MAX`: unbounded), base register, space, (1.1 and later: flags,) offset in the table (`u32::MAX`: appended) |
//!
//! Offsets count from the start of the bytes.

use serde::Serialize;

use super::{ContainerError, FourCc, Reader};

/// Bytes of a shader identifier, which starts every shader record
/// (`D3D12_SHADER_IDENTIFIER_SIZE_IN_BYTES`).
pub const SHADER_IDENTIFIER_SIZE: u32 = 32;

/// The largest shader record stride (DXR spec "Shader record"): a local root signature's
/// arguments fit in this less the identifier.
pub const MAX_SHADER_RECORD_STRIDE: u32 = 4096;

/// The most parameters read (D3D12's root signatures hold at most 64 DWORDs, local ones
/// at most 4064 bytes of arguments, so this bounds a corrupt count only).
pub const MAX_ROOT_PARAMETERS: u32 = 1024;

/// A descriptor's register class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RegisterClass {
    /// `t` registers.
    Srv,
    /// `u` registers.
    Uav,
    /// `b` registers.
    Cbv,
    /// `s` registers.
    Sampler,
}

/// One range of a descriptor table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DescriptorRange {
    /// Its register class.
    pub class: RegisterClass,
    /// Descriptors in the range (`u32::MAX`: unbounded).
    pub count: u32,
    /// The first register.
    pub base_register: u32,
    /// The register space.
    pub space: u32,
    /// Its offset in the table, in descriptors (`u32::MAX`: after the previous range).
    pub offset: u32,
}

/// What a root parameter binds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum RootParameterKind {
    /// Root constants: `count` 32-bit values read as constant buffer `b{register}`.
    Constants {
        /// The register.
        register: u32,
        /// The register space.
        space: u32,
        /// 32-bit values.
        count: u32,
    },
    /// A root descriptor (a GPU virtual address): a CBV, SRV or UAV.
    Descriptor {
        /// `Cbv`, `Srv` or `Uav`.
        class: RegisterClass,
        /// The register.
        register: u32,
        /// The register space.
        space: u32,
    },
    /// A descriptor table (a descriptor heap handle).
    Table {
        /// Its ranges.
        ranges: Vec<DescriptorRange>,
    },
}

/// One root parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootParameter {
    /// `D3D12_SHADER_VISIBILITY`.
    pub visibility: u32,
    /// What it binds.
    pub kind: RootParameterKind,
}

/// A decoded root signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootSignature {
    /// The version word (1: 1.0, 2: 1.1, 3: 1.2).
    pub version: u32,
    /// `D3D12_ROOT_SIGNATURE_FLAGS`.
    pub flags: u32,
    /// The parameters, in order.
    pub parameters: Vec<RootParameter>,
    /// Static samplers (counted, not read).
    pub static_samplers: u32,
}

/// Where a local root argument lies in a shader record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LocalArgument {
    /// The root parameter's index.
    pub parameter: usize,
    /// Its byte offset from the record's start (after the identifier).
    pub offset: u32,
    /// Its size in bytes: 4 per constant, 8 for a descriptor's GPU virtual address or a
    /// table's descriptor handle.
    pub size: u32,
}

impl RootSignature {
    /// Decodes a serialized root signature (`what` names it in errors, e.g. the part's
    /// tag). Refuses an unknown version or parameter type, a count past
    /// [`MAX_ROOT_PARAMETERS`] or past the bytes, and offsets outside the bytes.
    pub fn parse(bytes: &[u8], tag: FourCc) -> Result<RootSignature, ContainerError> {
        let r = Reader::new(bytes, tag);
        let bad = |what, value: u32, offset: usize| ContainerError::BadField {
            part: tag,
            what,
            value: value.into(),
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
        };
        let version = r.u32_at(0)?;
        if !(1..=3).contains(&version) {
            return Err(bad("root signature version", version, 0));
        }
        let count = r.u32_at(4)?;
        let at = r.u32_at(8)? as usize;
        let static_samplers = r.u32_at(12)?;
        let flags = r.u32_at(20)?;
        if count > MAX_ROOT_PARAMETERS
            || (count as usize).saturating_mul(12).saturating_add(at) > bytes.len()
        {
            return Err(bad("root parameter count", count, 4));
        }
        let mut parameters = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            let p = at.saturating_add(i.saturating_mul(12));
            let ty = r.u32_at(p)?;
            let visibility = r.u32_at(p.saturating_add(4))?;
            let payload = r.u32_at(p.saturating_add(8))? as usize;
            let w = |k: usize| r.u32_at(payload.saturating_add(k.saturating_mul(4)));
            let kind = match ty {
                0 => {
                    let n = w(0)?;
                    let ranges_at = w(1)? as usize;
                    let size = if version == 1 { 20 } else { 24 };
                    if (n as usize).saturating_mul(size).saturating_add(ranges_at) > bytes.len() {
                        return Err(bad("descriptor range count", n, payload));
                    }
                    let mut ranges = Vec::with_capacity(n as usize);
                    for k in 0..n as usize {
                        let q = ranges_at.saturating_add(k.saturating_mul(size));
                        let v = |j: usize| r.u32_at(q.saturating_add(j.saturating_mul(4)));
                        let class = match v(0)? {
                            0 => RegisterClass::Srv,
                            1 => RegisterClass::Uav,
                            2 => RegisterClass::Cbv,
                            3 => RegisterClass::Sampler,
                            t => return Err(bad("descriptor range type", t, q)),
                        };
                        ranges.push(DescriptorRange {
                            class,
                            count: v(1)?,
                            base_register: v(2)?,
                            space: v(3)?,
                            offset: v(if version == 1 { 4 } else { 5 })?,
                        });
                    }
                    RootParameterKind::Table { ranges }
                }
                1 => RootParameterKind::Constants {
                    register: w(0)?,
                    space: w(1)?,
                    count: w(2)?,
                },
                2..=4 => RootParameterKind::Descriptor {
                    class: match ty {
                        2 => RegisterClass::Cbv,
                        3 => RegisterClass::Srv,
                        _ => RegisterClass::Uav,
                    },
                    register: w(0)?,
                    space: w(1)?,
                },
                t => return Err(bad("root parameter type", t, p)),
            };
            parameters.push(RootParameter { visibility, kind });
        }
        Ok(RootSignature {
            version,
            flags,
            parameters,
            static_samplers,
        })
    }

    /// The local root arguments' places in a shader record and the record's size: the
    /// identifier's [`SHADER_IDENTIFIER_SIZE`] bytes, then each parameter in order,
    /// aligned to its size — 4 bytes per root constant, 8 for a root descriptor or a
    /// descriptor table's handle, each at the next 8-byte boundary (DXR spec "Shader
    /// table memory initialization"). `None` when the record would pass
    /// [`MAX_SHADER_RECORD_STRIDE`] (DXR spec "Local root signatures vs global root
    /// signatures": at most 4064 bytes of arguments).
    pub fn local_arguments(&self) -> Option<(Vec<LocalArgument>, u32)> {
        let mut at = u64::from(SHADER_IDENTIFIER_SIZE);
        let mut out = Vec::with_capacity(self.parameters.len());
        for (i, p) in self.parameters.iter().enumerate() {
            let (size, align) = match p.kind {
                RootParameterKind::Constants { count, .. } => (u64::from(count).checked_mul(4)?, 4),
                _ => (8, 8),
            };
            at = at.div_ceil(align).checked_mul(align)?;
            let end = at.checked_add(size)?;
            if end > u64::from(MAX_SHADER_RECORD_STRIDE) {
                return None;
            }
            out.push(LocalArgument {
                parameter: i,
                offset: u32::try_from(at).ok()?,
                size: u32::try_from(size).ok()?,
            });
            at = end;
        }
        Some((out, u32::try_from(at).ok()?))
    }
}

impl RootParameterKind {
    /// The parameter's kind as D3D12 names it (`DESCRIPTOR_TABLE`, `32BIT_CONSTANTS`,
    /// `CBV`, `SRV`, `UAV`).
    pub fn name(&self) -> &'static str {
        match self {
            RootParameterKind::Table { .. } => "DESCRIPTOR_TABLE",
            RootParameterKind::Constants { .. } => "32BIT_CONSTANTS",
            RootParameterKind::Descriptor { class, .. } => match class {
                RegisterClass::Cbv => "CBV",
                RegisterClass::Srv => "SRV",
                // A sampler is never a root descriptor; the decoder makes none.
                RegisterClass::Uav | RegisterClass::Sampler => "UAV",
            },
        }
    }
}

/// Decodes a container's `RTS0` part ([`RootSignature::parse`] with the part's tag).
pub fn parse(bytes: &[u8]) -> Result<RootSignature, ContainerError> {
    RootSignature::parse(bytes, FourCc::RTS0)
}

/// A root signature's bytes in the 1.1 layout (the inverse of [`parse`] for a 1.1
/// signature without static samplers), so tests and tools can put one into a container
/// as DXC does: header, parameter headers, parameter bodies, then the tables' ranges.
pub fn serialize(sig: &RootSignature) -> Vec<u8> {
    fn push(out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let len32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let count = len32(sig.parameters.len());
    let headers_end = count.saturating_mul(12).saturating_add(24);
    let mut headers: Vec<u8> = Vec::new();
    let mut bodies: Vec<u8> = Vec::new();
    // (where in `bodies` a table's range offset goes, its ranges' bytes)
    let mut tables: Vec<(usize, Vec<u8>)> = Vec::new();
    for p in &sig.parameters {
        let body_at = headers_end.saturating_add(len32(bodies.len()));
        let (ty, words): (u32, Vec<u32>) = match &p.kind {
            RootParameterKind::Table { ranges } => {
                let mut bytes = Vec::new();
                for r in ranges {
                    let class = match r.class {
                        RegisterClass::Srv => 0,
                        RegisterClass::Uav => 1,
                        RegisterClass::Cbv => 2,
                        RegisterClass::Sampler => 3,
                    };
                    // D3D12_DESCRIPTOR_RANGE1: type, count, register, space, flags, offset.
                    for w in [class, r.count, r.base_register, r.space, 0, r.offset] {
                        push(&mut bytes, w);
                    }
                }
                tables.push((bodies.len().saturating_add(4), bytes));
                (0, vec![len32(ranges.len()), 0])
            }
            RootParameterKind::Constants {
                register,
                space,
                count,
            } => (1, vec![*register, *space, *count]),
            RootParameterKind::Descriptor {
                class,
                register,
                space,
            } => {
                let ty = match class {
                    RegisterClass::Cbv => 2,
                    RegisterClass::Srv => 3,
                    RegisterClass::Uav | RegisterClass::Sampler => 4,
                };
                (ty, vec![*register, *space, 0])
            }
        };
        push(&mut headers, ty);
        push(&mut headers, p.visibility);
        push(&mut headers, body_at);
        for w in words {
            push(&mut bodies, w);
        }
    }
    let ranges_base = headers_end.saturating_add(len32(bodies.len()));
    let mut tail: Vec<u8> = Vec::new();
    for (patch_at, bytes) in tables {
        let at = ranges_base.saturating_add(len32(tail.len()));
        if let Some(slot) = bodies.get_mut(patch_at..patch_at.saturating_add(4)) {
            slot.copy_from_slice(&at.to_le_bytes());
        }
        tail.extend_from_slice(&bytes);
    }
    let samplers_at = ranges_base.saturating_add(len32(tail.len()));
    let mut out = Vec::new();
    for w in [2, count, 24, 0, samplers_at, sig.flags] {
        push(&mut out, w);
    }
    out.extend_from_slice(&headers);
    out.extend_from_slice(&bodies);
    out.extend_from_slice(&tail);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::arithmetic_side_effects)]

    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A 1.1 signature: constants (3 values, b1), a CBV at b2, a table of one SRV range.
    fn three() -> Vec<u8> {
        words(&[
            2,
            3,
            24,
            0,
            0,
            0, // header
            1,
            0,
            60, // constants at 60
            2,
            0,
            72, // CBV at 72
            0,
            0,
            84, // table at 84
            1,
            0,
            3, // constants: b1, space 0, 3 values
            2,
            0,
            0, // CBV: b2, space 0, flags
            1,
            92, // table: 1 range at 92
            0,
            4,
            5,
            0,
            0,
            u32::MAX, // SRV t5..t8 space 0, appended
        ])
    }

    /// The offload suite's `RootConstants.test` root signature,
    /// `RootConstants(b2, num32BitConstants = 4), DescriptorTable(SRV(t2), UAV(u1,
    /// space=4))`, as its `obj2yaml` check states DXC serializes it: 116 bytes, the
    /// parameters at 24, the table's ranges at 68.
    #[test]
    fn reads_what_it_writes_in_dxc_layout() {
        let range = |class, base_register, space| DescriptorRange {
            class,
            count: 1,
            base_register,
            space,
            offset: u32::MAX,
        };
        let sig = RootSignature {
            version: 2,
            flags: 0,
            parameters: vec![
                RootParameter {
                    visibility: 0,
                    kind: RootParameterKind::Constants {
                        register: 2,
                        space: 0,
                        count: 4,
                    },
                },
                RootParameter {
                    visibility: 0,
                    kind: RootParameterKind::Table {
                        ranges: vec![
                            range(RegisterClass::Srv, 2, 0),
                            range(RegisterClass::Uav, 1, 4),
                        ],
                    },
                },
            ],
            static_samplers: 0,
        };
        let bytes = serialize(&sig);
        assert_eq!(bytes.len(), 116);
        let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        assert_eq!(word(60), 2, "the table's range count");
        assert_eq!(word(64), 68, "the table's ranges offset");
        assert_eq!(
            word(68 + 20),
            u32::MAX,
            "the first range's offset, after its flags"
        );
        assert_eq!(parse(&bytes).ok(), Some(sig));
    }

    #[test]
    fn decodes_every_parameter_kind() {
        let rs = RootSignature::parse(&three(), FourCc::RTS0).unwrap();
        assert_eq!(rs.version, 2);
        assert_eq!(
            rs.parameters
                .iter()
                .map(|p| p.kind.clone())
                .collect::<Vec<_>>(),
            vec![
                RootParameterKind::Constants {
                    register: 1,
                    space: 0,
                    count: 3
                },
                RootParameterKind::Descriptor {
                    class: RegisterClass::Cbv,
                    register: 2,
                    space: 0
                },
                RootParameterKind::Table {
                    ranges: vec![DescriptorRange {
                        class: RegisterClass::Srv,
                        count: 4,
                        base_register: 5,
                        space: 0,
                        offset: u32::MAX
                    }]
                },
            ]
        );
    }

    /// DXR spec "Shader table memory initialization": after the 32-byte identifier, 3
    /// constants take 32..44; the CBV's address goes to the next 8-byte boundary, 48..56;
    /// the table's handle 56..64. The record is 64 bytes.
    #[test]
    fn local_arguments_align_descriptors_to_eight() {
        let rs = RootSignature::parse(&three(), FourCc::RTS0).unwrap();
        let (args, size) = rs.local_arguments().unwrap();
        let places: Vec<(u32, u32)> = args.iter().map(|a| (a.offset, a.size)).collect();
        assert_eq!(places, vec![(32, 12), (48, 8), (56, 8)]);
        assert_eq!(size, 64);
        // 1016 constants end at 32 + 4064 = 4096: the largest record; one more is past it.
        let big = |n: u32| RootSignature {
            version: 2,
            flags: 0,
            parameters: vec![RootParameter {
                visibility: 0,
                kind: RootParameterKind::Constants {
                    register: 0,
                    space: 0,
                    count: n,
                },
            }],
            static_samplers: 0,
        };
        assert_eq!(big(1016).local_arguments().map(|(_, s)| s), Some(4096));
        assert_eq!(big(1017).local_arguments(), None);
    }

    /// Truncations, a bad version, a bad type, a huge count: errors, never a panic; every
    /// byte of a good signature at 0x00 and 0xff likewise.
    #[test]
    fn bad_bytes_are_refused() {
        let good = three();
        for n in 0..good.len() {
            assert!(
                RootSignature::parse(&good[..n], FourCc::RTS0).is_err(),
                "{n} bytes"
            );
        }
        let mut v = good.clone();
        v[0] = 9;
        assert!(RootSignature::parse(&v, FourCc::RTS0).is_err());
        let mut v = good.clone();
        v[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(RootSignature::parse(&v, FourCc::RTS0).is_err());
        for at in 0..good.len() {
            for b in [0, 0xff] {
                let mut v = good.clone();
                v[at] = b;
                let _ = RootSignature::parse(&v, FourCc::RTS0).map(|r| r.local_arguments());
            }
        }
    }
}
