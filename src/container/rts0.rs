//! `RTS0`: a root signature serialized into the container (DXC puts the one an HLSL
//! `[RootSignature(...)]` attribute declares there; `D3D12SerializeRootSignature` writes
//! the same bytes).
//!
//! Owns: reading the root parameters (their kind, visibility and registers) and the
//! count of static samplers. Does not own: binding anything by them (the caller, such
//! as `dxlane offload`, which binds root constants and root descriptors at the registers
//! read here).
//!
//! The layout, from `D3D12_ROOT_SIGNATURE_DESC` / `_DESC1` as serialized (DirectX-Specs,
//! "Root Signature Version 1.1"; LLVM's `DXContainer.h`, `RootSignature` structures),
//! all words little-endian and every offset from the start of the part:
//!
//! | bytes | field |
//! |---|---|
//! | 0 | version: 1 (root signature 1.0) or 2 (1.1) |
//! | 4, 8 | parameter count, offset of the parameter headers |
//! | 12, 16 | static sampler count, their offset |
//! | 20 | flags |
//!
//! Each parameter header is three words: type (0 descriptor table, 1 32-bit constants,
//! 2 CBV, 3 SRV, 4 UAV), shader visibility, offset of its body. A constants body is
//! register, space, count of 32-bit values; a root descriptor's is register, space (and
//! flags in 1.1); a table's is its range count and the ranges' offset, each range five
//! words (six in 1.1): type (0 SRV, 1 UAV, 2 CBV, 3 sampler), descriptor count, base
//! register, space, offset in the table.

use serde::Serialize;

use super::{ContainerError, FourCc, Reader};

/// The most root parameters read: a root signature holds at most 64 words, and each
/// parameter costs at least one.
pub const MAX_PARAMETERS: u32 = 64;

/// The most descriptor ranges read from one table.
pub const MAX_RANGES: u32 = 4096;

/// The kind of a root parameter and what it binds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum RootParameterKind {
    /// A descriptor table of `ranges` (type, count, base register, space).
    DescriptorTable {
        /// The ranges: range type (0 SRV, 1 UAV, 2 CBV, 3 sampler), descriptor count,
        /// base register, space.
        ranges: Vec<[u32; 4]>,
    },
    /// `values` 32-bit root constants at `b{register}` in `space`.
    Constants {
        /// The register number.
        register: u32,
        /// The register space.
        space: u32,
        /// How many 32-bit values.
        values: u32,
    },
    /// A root constant buffer view at `b{register}`.
    Cbv {
        /// The register number.
        register: u32,
        /// The register space.
        space: u32,
    },
    /// A root shader resource view at `t{register}`.
    Srv {
        /// The register number.
        register: u32,
        /// The register space.
        space: u32,
    },
    /// A root unordered access view at `u{register}`.
    Uav {
        /// The register number.
        register: u32,
        /// The register space.
        space: u32,
    },
}

impl RootParameterKind {
    /// The parameter's kind as D3D12 names it (`DESCRIPTOR_TABLE`, `32BIT_CONSTANTS`,
    /// `CBV`, `SRV`, `UAV`).
    pub fn name(&self) -> &'static str {
        match self {
            RootParameterKind::DescriptorTable { .. } => "DESCRIPTOR_TABLE",
            RootParameterKind::Constants { .. } => "32BIT_CONSTANTS",
            RootParameterKind::Cbv { .. } => "CBV",
            RootParameterKind::Srv { .. } => "SRV",
            RootParameterKind::Uav { .. } => "UAV",
        }
    }
}

/// One root parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootParameter {
    /// What it binds.
    pub kind: RootParameterKind,
    /// `D3D12_SHADER_VISIBILITY` (0 all stages, 1 vertex, … 5 pixel).
    pub visibility: u32,
}

/// A decoded `RTS0` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootSignature {
    /// 1 (root signature 1.0) or 2 (1.1).
    pub version: u32,
    /// The root parameters, in order (a parameter's index is its position).
    pub parameters: Vec<RootParameter>,
    /// How many static samplers it declares.
    pub static_samplers: u32,
    /// `D3D12_ROOT_SIGNATURE_FLAGS`.
    pub flags: u32,
}

const TAG: FourCc = FourCc(*b"RTS0");

fn at(i: u32, size: u32, base: u32) -> Option<usize> {
    i.checked_mul(size)?
        .checked_add(base)
        .and_then(|v| usize::try_from(v).ok())
}

fn offset_of(i: u32, size: u32, base: u32) -> Result<usize, ContainerError> {
    at(i, size, base).ok_or(ContainerError::BadField {
        part: TAG,
        what: "offset",
        value: u64::from(base),
        offset: 0,
    })
}

/// Reads an `RTS0` part's contents; every count and offset is checked against the part.
pub fn parse(bytes: &[u8]) -> Result<RootSignature, ContainerError> {
    let r = Reader::new(bytes, TAG);
    let version = r.u32_at(0)?;
    if !(1..=2).contains(&version) {
        return Err(ContainerError::BadField {
            part: TAG,
            what: "version",
            value: u64::from(version),
            offset: 0,
        });
    }
    let count = r.u32_at(4)?;
    let params_at = r.u32_at(8)?;
    let static_samplers = r.u32_at(12)?;
    let flags = r.u32_at(20)?;
    if count > MAX_PARAMETERS {
        return Err(ContainerError::LimitExceeded {
            part: TAG,
            what: "root parameters",
            limit: MAX_PARAMETERS,
        });
    }
    let mut parameters = Vec::with_capacity(count as usize);
    for i in 0..count {
        let h = offset_of(i, 12, params_at)?;
        let kind = r.u32_at(h)?;
        let visibility = r.u32_at(h.saturating_add(4))?;
        let body = r.u32_at(h.saturating_add(8))? as usize;
        let word = |k: usize| r.u32_at(body.saturating_add(k.saturating_mul(4)));
        let kind = match kind {
            0 => {
                let n = word(0)?;
                let ranges_at = word(1)?;
                if n > MAX_RANGES {
                    return Err(ContainerError::LimitExceeded {
                        part: TAG,
                        what: "descriptor ranges in a table",
                        limit: MAX_RANGES,
                    });
                }
                let size = if version == 1 { 20 } else { 24 };
                let mut ranges = Vec::with_capacity(n as usize);
                for k in 0..n {
                    let at = offset_of(k, size, ranges_at)?;
                    let w = |j: usize| r.u32_at(at.saturating_add(j.saturating_mul(4)));
                    ranges.push([w(0)?, w(1)?, w(2)?, w(3)?]);
                }
                RootParameterKind::DescriptorTable { ranges }
            }
            1 => RootParameterKind::Constants {
                register: word(0)?,
                space: word(1)?,
                values: word(2)?,
            },
            2 => RootParameterKind::Cbv {
                register: word(0)?,
                space: word(1)?,
            },
            3 => RootParameterKind::Srv {
                register: word(0)?,
                space: word(1)?,
            },
            4 => RootParameterKind::Uav {
                register: word(0)?,
                space: word(1)?,
            },
            other => {
                return Err(ContainerError::BadField {
                    part: TAG,
                    what: "root parameter type",
                    value: u64::from(other),
                    offset: u32::try_from(h).unwrap_or(u32::MAX),
                });
            }
        };
        parameters.push(RootParameter { kind, visibility });
    }
    Ok(RootSignature {
        version,
        parameters,
        static_samplers,
        flags,
    })
}

/// A root signature's `RTS0` bytes (the inverse of [`parse`], version 1.1), so tests
/// and tools can put one into a container as DXC does.
pub fn serialize(sig: &RootSignature) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let push = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    let count = u32::try_from(sig.parameters.len()).unwrap_or(u32::MAX);
    let headers_end = count.saturating_mul(12).saturating_add(24);
    // Header, then parameter headers, then bodies, then the tables' ranges.
    let mut bodies: Vec<u8> = Vec::new();
    let mut ranges: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut headers: Vec<u8> = Vec::new();
    for p in &sig.parameters {
        let body_at = headers_end.saturating_add(u32::try_from(bodies.len()).unwrap_or(0));
        let (kind, words): (u32, Vec<u32>) = match &p.kind {
            RootParameterKind::DescriptorTable { ranges: rs } => {
                let mut bytes = Vec::new();
                for r in rs {
                    for w in r {
                        push(&mut bytes, *w);
                    }
                    // Offset in descriptors from the table start: appended; flags: none.
                    push(&mut bytes, u32::MAX);
                    push(&mut bytes, 0);
                }
                ranges.push((bodies.len().saturating_add(4), bytes));
                (0, vec![u32::try_from(rs.len()).unwrap_or(0), 0])
            }
            RootParameterKind::Constants {
                register,
                space,
                values,
            } => (1, vec![*register, *space, *values]),
            RootParameterKind::Cbv { register, space } => (2, vec![*register, *space, 0]),
            RootParameterKind::Srv { register, space } => (3, vec![*register, *space, 0]),
            RootParameterKind::Uav { register, space } => (4, vec![*register, *space, 0]),
        };
        push(&mut headers, kind);
        push(&mut headers, p.visibility);
        push(&mut headers, body_at);
        for w in words {
            push(&mut bodies, w);
        }
    }
    // Place the ranges after the bodies and patch each table's range offset.
    let mut tail: Vec<u8> = Vec::new();
    let ranges_base = headers_end.saturating_add(u32::try_from(bodies.len()).unwrap_or(0));
    for (patch_at, bytes) in ranges {
        let at = ranges_base.saturating_add(u32::try_from(tail.len()).unwrap_or(0));
        if let Some(slot) = bodies.get_mut(patch_at..patch_at.saturating_add(4)) {
            slot.copy_from_slice(&at.to_le_bytes());
        }
        tail.extend_from_slice(&bytes);
    }
    let samplers_at = ranges_base.saturating_add(u32::try_from(tail.len()).unwrap_or(0));
    push(&mut out, 2);
    push(&mut out, count);
    push(&mut out, 24);
    push(&mut out, 0);
    push(&mut out, samplers_at);
    push(&mut out, sig.flags);
    out.extend_from_slice(&headers);
    out.extend_from_slice(&bodies);
    out.extend_from_slice(&tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offload suite's `RootConstants.test` root signature,
    /// `RootConstants(b2, num32BitConstants = 4), DescriptorTable(SRV(t2), UAV(u1,
    /// space=4))`, as its `obj2yaml` check states DXC serializes it: 116 bytes, the
    /// parameters at 24, the table's ranges at 68.
    #[test]
    fn reads_what_it_writes_in_dxc_layout() {
        let sig = RootSignature {
            version: 2,
            parameters: vec![
                RootParameter {
                    kind: RootParameterKind::Constants {
                        register: 2,
                        space: 0,
                        values: 4,
                    },
                    visibility: 0,
                },
                RootParameter {
                    kind: RootParameterKind::DescriptorTable {
                        ranges: vec![[0, 1, 2, 0], [1, 1, 1, 4]],
                    },
                    visibility: 0,
                },
            ],
            static_samplers: 0,
            flags: 0,
        };
        let bytes = serialize(&sig);
        assert_eq!(bytes.len(), 116);
        let word = |i: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(bytes.get(i..i.saturating_add(4)).unwrap_or(&[0; 4]));
            u32::from_le_bytes(w)
        };
        assert_eq!(word(60), 2, "the table's range count");
        assert_eq!(word(64), 68, "the table's ranges offset");
        assert_eq!(parse(&bytes).ok(), Some(sig));
    }

    /// Truncated parts, unknown versions and types, and hostile counts are errors.
    #[test]
    fn bad_parts_are_errors() {
        assert!(parse(&[2, 0, 0]).is_err());
        let mut b = serialize(&RootSignature {
            version: 2,
            parameters: vec![RootParameter {
                kind: RootParameterKind::Cbv {
                    register: 0,
                    space: 0,
                },
                visibility: 0,
            }],
            static_samplers: 0,
            flags: 0,
        });
        assert!(parse(&b).is_ok());
        let mut set = |i: usize, v: u8| {
            if let Some(x) = b.get_mut(i) {
                *x = v;
            }
            parse(&b).is_err()
        };
        assert!(set(24, 9), "an unknown parameter type");
        assert!(!set(24, 2));
        assert!(set(4, 200), "too many parameters");
        assert!(!set(4, 1));
        assert!(set(8, 200), "the parameter headers past the end");
        assert!(!set(8, 24));
        assert!(set(0, 3), "an unknown version");
    }
}
