//! `RDEF` decoding: hand-built parts in the layouts of vkd3d's `parse_rdef` (the
//! sources named in the module doc), good and bad.

#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use super::*;

/// A little assembler for parts: 32-bit words, strings, and back-patching.
#[derive(Default)]
pub(crate) struct Asm(pub Vec<u8>);

impl Asm {
    pub fn here(&self) -> u32 {
        self.0.len() as u32
    }
    pub fn u32(&mut self, v: u32) -> usize {
        let at = self.0.len();
        self.0.extend_from_slice(&v.to_le_bytes());
        at
    }
    pub fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn patch(&mut self, at: usize, v: u32) {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    pub fn str(&mut self, s: &str) -> u32 {
        let at = self.here();
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        while self.0.len() % 4 != 0 {
            self.0.push(0xab);
        }
        at
    }
}

/// Builds an `RDEF` part for target `major.minor` (pixel): one cbuffer `Frame` holding
/// `float4 tint` (with a default value) and `struct { float2 uv; } s[2]`, and two
/// bindings (`Frame` at cb1 and `tex` at t3, a 2D float4 texture). With `sm51`, the
/// 5.1 form: reversed `RD11` magic and 40-byte bindings with space 2 and ID 7.
pub(crate) fn build_rdef(major: u8, minor: u8, sm51: bool) -> Vec<u8> {
    let rd11 = major >= 5;
    let (var_size, ty_size, bind_size) = if rd11 {
        (40, 36, if sm51 { 40 } else { 32 })
    } else {
        (24, 16, 32)
    };
    let mut a = Asm::default();
    let cb_count = a.u32(1);
    let cb_off = a.u32(0);
    let bind_count = a.u32(2);
    let bind_off = a.u32(0);
    a.u32(0xffff_0000 | (u32::from(major) << 8) | u32::from(minor));
    a.u32(0x100);
    let creator = a.u32(0);
    if rd11 {
        a.u32(if sm51 {
            RD11_MAGIC_REVERSED
        } else {
            RD11_MAGIC
        });
        for v in [60, 24, bind_size, var_size, ty_size, 12, 0] {
            a.u32(v);
        }
    }
    let _ = (cb_count, bind_count);
    // Bindings.
    let b = a.here();
    a.patch(bind_off, b);
    let mut bind_names = Vec::new();
    for (ty, ret, dim, samples, point, flags) in [
        (0u32, 0u32, 0u32, 0u32, 1u32, 1u32),
        (2, 5, 4, u32::MAX, 3, 0xc),
    ] {
        bind_names.push(a.u32(0));
        for w in [ty, ret, dim, samples, point, 1, flags] {
            a.u32(w);
        }
        if bind_size == 40 {
            a.u32(2);
            a.u32(7);
        }
    }
    // The constant buffer.
    let c = a.here();
    a.patch(cb_off, c);
    let cb_name = a.u32(0);
    a.u32(2);
    let vars_at = a.u32(0);
    a.u32(48);
    a.u32(0);
    a.u32(0);
    let v = a.here();
    a.patch(vars_at, v);
    let mut var_fields = Vec::new();
    for (offset, size, flags) in [(0u32, 16u32, 2u32), (16, 24, 0)] {
        let name = a.u32(0);
        a.u32(offset);
        a.u32(size);
        a.u32(flags);
        let ty = a.u32(0);
        let default = a.u32(0);
        if rd11 {
            for w in [u32::MAX, 0, u32::MAX, 0] {
                a.u32(w);
            }
        }
        var_fields.push((name, ty, default));
    }
    // Types: float4, struct { float2 uv; } [2], float2.
    let ty =
        |a: &mut Asm, class: u16, base: u16, rows: u16, cols: u16, elems: u16, members: u16| {
            let at = a.here();
            for h in [class, base, rows, cols, elems, members] {
                a.u16(h);
            }
            let members_at = a.u32(0);
            let mut name_at = None;
            if rd11 {
                for _ in 0..4 {
                    a.u32(0);
                }
                name_at = Some(a.u32(0));
            }
            (at, members_at, name_at)
        };
    let (float4, _, float4_name) = ty(&mut a, 1, 3, 1, 4, 0, 0);
    let (strukt, members_at, strukt_name) = ty(&mut a, 5, 0, 1, 2, 2, 1);
    let (float2, _, float2_name) = ty(&mut a, 1, 3, 1, 2, 0, 0);
    let m = a.here();
    a.patch(members_at, m);
    let member_name = a.u32(0);
    a.u32(float2);
    a.u32(0);
    a.patch(var_fields[0].1, float4);
    a.patch(var_fields[1].1, strukt);
    assert_eq!(ty_size as usize, if rd11 { 36 } else { 16 });
    // Default value of `tint`.
    let d = a.here();
    a.patch(var_fields[0].2, d);
    for f in [1.0f32, 0.5, 0.25, 0.0] {
        a.u32(f.to_bits());
    }
    // Strings.
    let s = a.str("Microsoft (R) HLSL Shader Compiler 10.1");
    a.patch(creator, s);
    let s = a.str("Frame");
    a.patch(cb_name, s);
    a.patch(bind_names[0], s);
    let s = a.str("tex");
    a.patch(bind_names[1], s);
    let s = a.str("tint");
    a.patch(var_fields[0].0, s);
    let s = a.str("s");
    a.patch(var_fields[1].0, s);
    let s = a.str("uv");
    a.patch(member_name, s);
    if let (Some(f4), Some(st), Some(f2)) = (float4_name, strukt_name, float2_name) {
        let s = a.str("float4");
        a.patch(f4, s);
        let s = a.str("Inner");
        a.patch(st, s);
        let s = a.str("float2");
        a.patch(f2, s);
    }
    a.0
}

fn parse(data: &[u8]) -> Result<Rdef, ContainerError> {
    Rdef::parse(&Part {
        tag: FourCc::RDEF,
        offset: 0,
        data,
    })
}

#[test]
fn decodes_sm5_rdef() {
    let r = parse(&build_rdef(5, 0, false)).unwrap();
    assert_eq!((r.target_kind.as_str(), r.major, r.minor), ("ps", 5, 0));
    assert_eq!(r.compile_flag_names, ["NO_PRESHADER"]);
    assert!(r.creator.starts_with("Microsoft"));
    assert_eq!(r.rd11.unwrap().sizes.binding, 32);
    let cb = &r.constant_buffers[0];
    assert_eq!(
        (cb.name.as_str(), cb.kind, cb.size),
        ("Frame", CbufferType::Cbuffer, 48)
    );
    let tint = &cb.variables[0];
    assert_eq!(type_spelling(&tint.ty), "float4");
    assert!(tint.is_used());
    assert_eq!(tint.default_value.as_ref().unwrap().len(), 16);
    assert_eq!(tint.texture_sampler, Some([u32::MAX, 0, u32::MAX, 0]));
    let s = &cb.variables[1];
    assert_eq!(s.ty.class, VariableClass::Struct);
    assert_eq!(s.ty.elements, 2);
    assert_eq!(type_spelling(&s.ty), "struct Inner");
    assert_eq!(s.ty.members[0].name, "uv");
    assert_eq!(type_spelling(&s.ty.members[0].ty), "float2");
    let tex = &r.bindings[1];
    assert_eq!(
        (tex.input_type, tex.return_type, tex.dimension),
        (InputType::Texture, ReturnType::Float, Dimension::Texture2D)
    );
    assert_eq!(tex.components(), 4);
    assert_eq!((tex.space, tex.id), (None, None));
    assert_eq!(r.bindings[0].flag_names, ["userpacked"]);
    assert_eq!(r.buffer_for(&r.bindings[0]).unwrap().name, "Frame");
}

/// Shader Model 4.0 parts have no `RD11` sub-header, 24-byte variables and 16-byte
/// types without names (vkd3d `parse_rdef`'s defaults).
#[test]
fn decodes_sm4_rdef() {
    let r = parse(&build_rdef(4, 0, false)).unwrap();
    assert!(r.rd11.is_none());
    let tint = &r.constant_buffers[0].variables[0];
    assert_eq!(tint.texture_sampler, None);
    assert_eq!(tint.ty.name, None);
    assert_eq!(type_spelling(&tint.ty), "float4");
    assert_eq!(
        type_spelling(&r.constant_buffers[0].variables[1].ty),
        "struct"
    );
}

/// Shader Model 5.1: reversed magic and 40-byte bindings with space and ID.
#[test]
fn decodes_sm51_bindings() {
    let r = parse(&build_rdef(5, 1, true)).unwrap();
    assert_eq!(r.rd11.unwrap().magic, RD11_MAGIC_REVERSED);
    assert_eq!((r.bindings[1].space, r.bindings[1].id), (Some(2), Some(7)));
}

#[test]
fn refuses_bad_rd11_and_counts() {
    let good = build_rdef(5, 0, false);
    let mut bad = good.clone();
    bad[28] = b'X';
    assert!(matches!(
        parse(&bad),
        Err(ContainerError::BadField {
            what: "RD11 magic",
            ..
        })
    ));
    let mut bad = good.clone();
    bad[40..44].copy_from_slice(&33u32.to_le_bytes()); // binding size
    assert!(matches!(
        parse(&bad),
        Err(ContainerError::BadField {
            what: "RD11 binding size",
            ..
        })
    ));
    let mut bad = good.clone();
    bad[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        parse(&bad),
        Err(ContainerError::BadField {
            what: "constant buffer count",
            ..
        })
    ));
    for n in 0..good.len() {
        let _ = parse(&good[..n]);
    }
}

/// A struct whose member's type is the struct itself must end with `TooDeep`, not
/// recurse forever.
#[test]
fn refuses_self_referencing_types() {
    let mut data = build_rdef(5, 0, false);
    let r = parse(&data).unwrap();
    let strukt = r.constant_buffers[0].variables[1].ty.offset;
    let members = u32::from_le_bytes(
        data[strukt as usize + 12..strukt as usize + 16]
            .try_into()
            .unwrap(),
    ) as usize;
    data[members + 4..members + 8].copy_from_slice(&strukt.to_le_bytes());
    assert!(matches!(parse(&data), Err(ContainerError::TooDeep { .. })));
}
