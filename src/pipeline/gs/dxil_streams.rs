//! A DXIL geometry program writing all four streams, built by hand (`dxil::llvm::build`:
//! there is no DXIL compiler to build it from HLSL), drawn with each stream rasterized
//! in turn and with all four streamed out at once, beside its DXBC twin
//! (`shaders/geometry_four_streams.hlsl`, which states the program) from vkd3d.
//!
//! The draw: two points from `SV_VertexID` v = 0, 1 at clip x = −0.875, y = 0.875 −
//! 0.5 v (z 0, w 1): the centres of pixels (0, 0) and (0, 2) of an 8 × 8 target.
//! Stream k moves the point right by 0.25 k (one pixel) and gives it `COLOR0` =
//! (k + 1, y, 0, 1), so stream k lights pixels (k, 0) and (k, 2) with k + 1 in red and
//! the input's y (0.875, 0.375) in green.

#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::build::Mb;
use crate::dxil::llvm::{BinOp, Constant, MdId, Metadata, Module, NamedMetadata, Type, ValueId};
use crate::ir::{Shader, parse_shader};
use crate::lower::LoadOptions;
use crate::pipeline::so::{
    NO_RASTERIZED_STREAM, SoBufferView, SoDeclarationEntry, StreamOutput, StreamOutputDesc,
};
use crate::pipeline::{
    Bindings, CullMode, DrawArgs, DrawOptions, DrawState, PrimitiveTopology, RenderTargetView, draw,
};
use crate::resources::{Format, Memory, Texture, TextureDesc};

pub(super) const DL: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// A metadata node of `ops`.
pub(super) fn node(mb: &mut Mb, ops: Vec<Option<MdId>>) -> Option<MdId> {
    Some(mb.md(Metadata::Node {
        distinct: false,
        ops,
    }))
}

/// An integer constant of `bits` bits as metadata.
pub(super) fn int(mb: &mut Mb, bits: u32, v: i64) -> Option<MdId> {
    let c = mb.ci(bits, v);
    let ty = mb.ty_of(c);
    Some(mb.md(Metadata::Value { ty, value: c }))
}

/// A signature element record (DXIL.rst "Signature element record"): one row of
/// four `float` columns at `row`, on `stream`.
pub(super) fn element(
    mb: &mut Mb,
    id: i64,
    name: &str,
    kind: i64,
    row: i64,
    stream: i64,
) -> Option<MdId> {
    let name = Some(mb.md(Metadata::String(name.as_bytes().to_vec())));
    let index = int(mb, 32, 0);
    let indices = node(mb, vec![index]);
    let ops = vec![
        int(mb, 32, id),
        name,
        int(mb, 8, 9), // f32
        int(mb, 8, kind),
        indices,
        int(mb, 8, 0),
        int(mb, 32, 1),
        int(mb, 8, 4),
        int(mb, 32, row),
        int(mb, 8, 0),
    ];
    let tag = int(mb, 32, 0); // the stream tag
    let value = int(mb, 32, stream);
    let tags = node(mb, vec![tag, value]);
    let mut ops = ops;
    ops.push(tags);
    node(mb, ops)
}

/// The geometry program of `shaders/geometry_four_streams.hlsl` as DXIL: point input
/// (`SV_Position`, row 0), per stream k an `SV_Position` (row 0) and a `COLOR0` (row 1)
/// of its own, `maxvertexcount(4)`, stream mask 0xf, point lists. Stream 0 emits;
/// stream 1 emits then cuts; stream 2 emits; stream 3 uses `EmitThenCutStream`.
fn four_streams() -> Module {
    let mut mb = Mb::new(DL);
    let (f32t, void) = (mb.t(Type::Float), mb.void());
    // The metadata's operands first: module constants and nodes.
    let kind = Some(mb.md(Metadata::String(b"gs".to_vec())));
    let (six, zero) = (int(&mut mb, 32, 6), int(&mut mb, 32, 0));
    let model = node(&mut mb, vec![kind, six, zero]);
    let input = element(&mut mb, 0, "SV_Position", 3, 0, 0);
    let inputs = node(&mut mb, vec![input]);
    let mut outs = Vec::new();
    for k in 0..4 {
        outs.push(element(&mut mb, 2 * k, "SV_Position", 3, 0, k));
        outs.push(element(&mut mb, 2 * k + 1, "COLOR", 0, 1, k));
    }
    let outputs = node(&mut mb, outs);
    let sigs = node(&mut mb, vec![inputs, outputs, None]);
    // Input primitive point (1), max vertex count 4, stream mask 0xf, point list (1),
    // one instance (dxc's five operands, `geometry::state`).
    let state: Vec<Option<MdId>> = [1, 4, 0xf, 1, 1]
        .into_iter()
        .map(|v| int(&mut mb, 32, v))
        .collect();
    let state = node(&mut mb, state);
    let tag = int(&mut mb, 32, 1);
    let props = node(&mut mb, vec![tag, state]);
    let name = Some(mb.md(Metadata::String(b"main".to_vec())));

    let fc = |mb: &mut Mb, x: f32| mb.c(f32t, Constant::Float(u64::from(x.to_bits())));
    mb.block();
    let c0 = mb.ci(32, 0);
    let p: Vec<ValueId> = (0..4)
        .map(|c| {
            let col = mb.ci(8, c);
            mb.dx("loadInput.f32", DxOp::LoadInput, &[c0, c0, col, c0], f32t)
        })
        .collect();
    for k in 0..4i64 {
        let dx = fc(&mut mb, 0.25 * k as f32);
        let x = mb.bin(BinOp::Add, p[0], dx, f32t);
        let (red, zero, one) = (
            fc(&mut mb, (k + 1) as f32),
            fc(&mut mb, 0.0),
            fc(&mut mb, 1.0),
        );
        let rows = [
            (2 * k, [x, p[1], p[2], p[3]]),
            (2 * k + 1, [red, p[1], zero, one]),
        ];
        for (id, values) in rows {
            let id = mb.ci(32, id);
            for (c, v) in values.into_iter().enumerate() {
                let col = mb.ci(8, c as i64);
                mb.dx(
                    "storeOutput.f32",
                    DxOp::StoreOutput,
                    &[id, c0, col, v],
                    void,
                );
            }
        }
        let s = mb.ci(8, k);
        match k {
            1 => {
                mb.dx("emitStream", DxOp::EmitStream, &[s], void);
                mb.dx("cutStream", DxOp::CutStream, &[s], void);
            }
            3 => {
                mb.dx("emitThenCutStream", DxOp::EmitThenCutStream, &[s], void);
            }
            _ => {
                mb.dx("emitStream", DxOp::EmitStream, &[s], void);
            }
        }
    }
    mb.ret();
    let (mut m, fi) = mb.finish();
    let func = &m.functions[fi];
    m.metadata.push(Metadata::Value {
        ty: func.ptr_ty,
        value: func.value,
    });
    let fmd = Some(MdId(m.metadata.len() as u32 - 1));
    m.metadata.push(Metadata::Node {
        distinct: false,
        ops: vec![fmd, name, sigs, None, props],
    });
    let entry = MdId(m.metadata.len() as u32 - 1);
    for (n, id) in [
        ("dx.shaderModel", model.unwrap()),
        ("dx.entryPoints", entry),
    ] {
        m.named_metadata.push(NamedMetadata {
            name: n.into(),
            ops: vec![id],
        });
    }
    m
}

/// The vertex program: `SV_VertexID` v → clip (−0.875, 0.875 − 0.5 v, 0, 1).
const VS: &str = "shader vertex
regs 8
const r0 = 0xbf600000 ; -0.875
const r1 = 0x3f600000 ; 0.875
const r2 = 0x3f000000 ; 0.5
const r3 = 0x0
const r4 = 0x3f800000 ; 1.0
io_words in 4 out 4
input \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r5, 0
    utof r5, r5
    fmul r5, r5, r2
    fsub r6, r1, r5
    output 0, r0
    output 1, r6
    output 2, r3
    output 3, r4
    return
";

/// The two builds of the geometry program: the hand-built DXIL, and vkd3d's DXBC.
fn programs() -> [(&'static str, Shader); 2] {
    let dxil = crate::lower::dxil::lower_module(&four_streams(), &LoadOptions::default())
        .unwrap_or_else(|e| panic!("the hand-built DXIL geometry program: {e}"));
    crate::ir::validate(&dxil).unwrap();
    let bytes = include_bytes!("../../../shaders/geometry_four_streams.gs_5_0.dxbc");
    let dxbc = crate::lower::load(bytes, &LoadOptions::default())
        .unwrap()
        .shader;
    [("dxil", dxil), ("dxbc", dxbc)]
}

/// What one draw left: the target's texels (RGBA32 floats, row by row) and each
/// stream-output buffer's words.
struct Drawn {
    texels: Vec<[f32; 4]>,
    so: Vec<Vec<u32>>,
}

/// Draws the two points through `gs` into an 8 × 8 `R32G32B32A32_FLOAT` target, with
/// stream output's `entries` into four 24-byte buffers and `rasterized` stream.
fn run(gs: &Shader, entries: Vec<SoDeclarationEntry>, rasterized: u32) -> Drawn {
    let vs = parse_shader(VS).unwrap();
    let ps = parse_shader(include_str!("../../../shaders/draw_color.ps.ir")).unwrap();
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 8, 8)).unwrap();
    let mut state = DrawState::new(&vs, Some(&ps), &none, &none);
    state.gs = Some((gs, &none));
    state.topology = PrimitiveTopology::PointList;
    state.rasterizer.cull_mode = CullMode::None;
    state.render_targets = vec![Some(RenderTargetView {
        texture: rt.clone(),
    })];
    let buffers: Vec<Memory> = (0..4).map(|_| Memory::zeroed(24).unwrap()).collect();
    state.stream_output = Some(StreamOutput {
        desc: StreamOutputDesc {
            entries,
            strides: vec![12; 4],
            rasterized_stream: rasterized,
        },
        buffers: buffers
            .iter()
            .map(|m| {
                Some(SoBufferView {
                    data: m.clone(),
                    offset: 0,
                    size: 24,
                    filled_size: None,
                })
            })
            .collect(),
    });
    let args = DrawArgs {
        vertex_count: 2,
        ..DrawArgs::default()
    };
    draw(&state, &args, &DrawOptions::default()).unwrap();
    let texels = rt
        .to_bytes()
        .chunks(16)
        .map(|t| {
            std::array::from_fn(|c| f32::from_le_bytes(t[4 * c..4 * c + 4].try_into().unwrap()))
        })
        .collect();
    let so = buffers
        .iter()
        .map(|m| (0..6).map(|i| m.load_u32(4 * i).unwrap()).collect())
        .collect();
    Drawn { texels, so }
}

/// Stream k's point of input vertex v: pixel (k, 2v), colour (k + 1, y, 0, 1) with
/// y = 0.875 − 0.5 v (module doc).
fn lit(k: u32) -> Vec<((u32, u32), [f32; 4])> {
    (0..2u32)
        .map(|v| {
            (
                (k, 2 * v),
                [(k + 1) as f32, 0.875 - 0.5 * v as f32, 0.0, 1.0],
            )
        })
        .collect()
}

/// The texels `lit` leaves, every other one zero.
fn expected(lit: &[((u32, u32), [f32; 4])]) -> Vec<[f32; 4]> {
    let mut t = vec![[0.0; 4]; 64];
    for &((x, y), c) in lit {
        t[(8 * y + x) as usize] = c;
    }
    t
}

/// D3D12 `D3D12_STREAM_OUTPUT_DESC::RasterizedStream` (D3D11.3 §14.1 "Stream Output
/// Stage": the stream to rasterize, any of the four): each stream of the DXIL program
/// rasterized in turn lights only its own points — its own `SV_Position` and `COLOR0`
/// rows (DXIL.rst "Signature element record": each stream's rows from 0), which the
/// pixel program links by — and the DXBC twin, whose streams share the output
/// registers, lights the same texels.
#[test]
fn each_stream_of_a_dxil_program_rasterized_in_turn() {
    let [(_, dxil), (_, dxbc)] = programs();
    for k in 0..4 {
        let want = expected(&lit(k));
        let a = run(&dxil, Vec::new(), k);
        assert_eq!(a.texels, want, "DXIL, stream {k} rasterized");
        let b = run(&dxbc, Vec::new(), k);
        assert_eq!(b.texels, a.texels, "DXBC twin, stream {k} rasterized");
    }
}

/// D3D11.3 §14 "Stream Output Stage" with several streams: every stream writes its
/// own buffer in the same draw (`COLOR0.xy` then `SV_Position.x`, 12-byte records),
/// each point once per input vertex in input order, while stream 2 is rasterized; the
/// DXBC twin writes the same words.
#[test]
fn four_streams_of_a_dxil_program_streamed_out_at_once() {
    let entries: Vec<SoDeclarationEntry> = (0..4u32)
        .flat_map(|k| {
            [("COLOR", 0, 2), ("SV_Position", 0, 1)].map(|(name, start, count)| {
                SoDeclarationEntry {
                    stream: k,
                    semantic_name: Some(name.into()),
                    semantic_index: 0,
                    start_component: start,
                    component_count: count,
                    output_slot: k as u8,
                }
            })
        })
        .collect();
    let [(_, dxil), (_, dxbc)] = programs();
    let a = run(&dxil, entries.clone(), 2);
    for k in 0..4u32 {
        let x = -0.875 + 0.25 * k as f32;
        let want: Vec<u32> = [0.875f32, 0.375]
            .into_iter()
            .flat_map(|y| [(k + 1) as f32, y, x].map(f32::to_bits))
            .collect();
        assert_eq!(a.so[k as usize], want, "DXIL, stream {k}'s buffer");
    }
    assert_eq!(a.texels, expected(&lit(2)), "stream 2 rasterized");
    let b = run(&dxbc, entries.clone(), 2);
    assert_eq!((b.so, b.texels), (a.so, a.texels), "the DXBC twin");
    let none = run(&dxil, entries, NO_RASTERIZED_STREAM);
    assert_eq!(none.texels, expected(&[]), "no stream rasterized");
}
