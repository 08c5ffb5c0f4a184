//! SM 6.8's expanded comparison sampling — `SampleCmpBias` and `SampleCmpGrad` — and
//! SM 6.7's `SampleCmpLevel`, in programs built with the project's bitcode builder
//! (`dxil::llvm::build`; no dxc here) and committed under `tests/jobs/sm68/` next to the
//! jobs that run them: [`the_committed_containers_are_regenerated_unchanged`] keeps the
//! files in step with the builders below (`DXLANE_BLESS=1` rewrites them).
//!
//! The rules (HLSL specs proposal 0014 "Expanded Comparison Sampling", which SM 6.8's
//! DirectX-Specs page points to): the DXIL operands are `sampleCmpGrad(tex, sampler, c0..c3,
//! o0..o2, compare, ddx0..2, ddy0..2, clamp)` and `sampleCmpBias(tex, sampler, c0..c3,
//! o0..o2, compare, bias, clamp)`; the LOD is computed as `SampleGrad`'s and
//! `SampleBias`'s, then each texel's red channel is compared with the reference and the
//! 0/1 results are filtered (D3D11.3 §7.18.15). `SampleCmpBias` needs implicit
//! derivatives, so it runs in pixel, compute, mesh and amplification programs only;
//! `SampleCmpGrad` runs in every stage (DXC's `rdat_mintarget/sm68_samplecmpgradbias`
//! stage masks). Each job's `[[expect]]` values are derived by hand in its comments; the
//! tests run the jobs on both engines.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{BinOp, CastOp, Constant, MdId, Metadata, Type, TypeId, ValueId};
use dxlane::lower::{LoadOptions, LowerError, load};

use crate::common;

const DL: &str = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// The folder of the committed containers and their jobs.
const FOLDER: &str = "tests/jobs/sm68";

/// A resource of a test program, in register order within its class.
#[derive(Clone, Copy)]
enum Res {
    /// A `Texture2D<float>` SRV.
    Texture,
    /// A raw-buffer UAV.
    RawUav,
    /// A `SamplerComparisonState` (sampler type 1).
    CmpSampler,
}

fn mi(mb: &mut Mb, bits: u32, v: i64) -> Option<MdId> {
    let c = mb.ci(bits, v);
    let t = mb.int(bits);
    Some(mb.md(Metadata::Value { ty: t, value: c }))
}

fn node(mb: &mut Mb, ops: Vec<Option<MdId>>) -> Option<MdId> {
    Some(mb.md(Metadata::Node {
        distinct: false,
        ops,
    }))
}

/// A signature element: name, DXIL semantic kind, columns, row and interpolation (all
/// 32-bit floats).
type Sig = (&'static str, i64, i64, i64, i64);

/// The pixel program's inputs: `SV_Position` (linear without perspective) and
/// `TEXCOORD` (linear), at rows 0 and 1 as `sampling.vs.ir` writes them.
const PS_INPUTS: [Sig; 2] = [("SV_Position", 3, 4, 0, 4), ("TEXCOORD", 0, 2, 1, 2)];
/// Its output, `SV_Target` (float4).
const PS_OUTPUTS: [Sig; 1] = [("SV_Target", 16, 4, 0, 0)];
/// A vertex program's output, `SV_Position`.
const VS_OUTPUTS: [Sig; 1] = [("SV_Position", 3, 4, 0, 0)];

fn sig_list(mb: &mut Mb, sigs: &[Sig]) -> Option<MdId> {
    let mut list = Vec::new();
    for (id, &(name, kind, cols, row, interp)) in sigs.iter().enumerate() {
        let zero = mi(mb, 32, 0);
        let indices = node(mb, vec![zero]);
        let name = Some(mb.md(Metadata::String(name.as_bytes().to_vec())));
        let ops = vec![
            mi(mb, 32, id as i64),
            name,
            // SV_VertexID (kind 1) is a uint (component type 5), the rest 32-bit floats.
            mi(mb, 8, if kind == 1 { 5 } else { 9 }),
            mi(mb, 8, kind),
            indices,
            mi(mb, 8, interp),
            mi(mb, 32, 1),
            mi(mb, 8, cols),
            mi(mb, 32, row),
            mi(mb, 8, 0),
            None,
        ];
        list.push(node(mb, ops));
    }
    node(mb, list)
}

/// Finishes `mb` as the SM 6.8 entry `main` of `kind`: a pixel program (signatures
/// [`PS_INPUTS`], [`PS_OUTPUTS`]), a vertex program (output [`VS_OUTPUTS`]) or a
/// compute program of `[numthreads(4, 1, 1)]`;
/// `resources` are numbered from 0 in each class in the order given.
fn finish(mb: Mb, kind: ProgramKind, resources: &[Res]) -> Vec<u8> {
    finish_with(mb, kind, resources, None)
}

/// [`finish`] with the vertex program's signatures `vs` (inputs, outputs) instead of
/// [`VS_OUTPUTS`] alone.
fn finish_with(
    mut mb: Mb,
    kind: ProgramKind,
    resources: &[Res],
    vs: Option<(&[Sig], &[Sig])>,
) -> Vec<u8> {
    let pixel = kind == ProgramKind::Pixel;
    let profile = match kind {
        ProgramKind::Pixel => "ps",
        ProgramKind::Vertex => "vs",
        _ => "cs",
    };
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 8)];
    let version = node(&mut mb, version.to_vec());
    let p = Some(mb.md(Metadata::String(profile.as_bytes().to_vec())));
    let sm = [p, mi(&mut mb, 32, 6), mi(&mut mb, 32, 8)];
    let sm = node(&mut mb, sm.to_vec());
    let (mut srvs, mut uavs, mut samplers) = (Vec::new(), Vec::new(), Vec::new());
    for r in resources {
        let name = Some(mb.md(Metadata::String(Vec::new())));
        let id = match r {
            Res::Texture => srvs.len(),
            Res::RawUav => uavs.len(),
            Res::CmpSampler => samplers.len(),
        } as i64;
        let mut ops = vec![
            mi(&mut mb, 32, id),
            None,
            name,
            mi(&mut mb, 32, 0),
            mi(&mut mb, 32, id),
            mi(&mut mb, 32, 1),
        ];
        match r {
            Res::Texture => {
                let tags = [mi(&mut mb, 32, 0), mi(&mut mb, 32, 9)];
                let tags = node(&mut mb, tags.to_vec());
                ops.extend([mi(&mut mb, 32, 2), mi(&mut mb, 32, 0), tags]);
                srvs.push(node(&mut mb, ops));
            }
            Res::RawUav => {
                ops.extend([
                    mi(&mut mb, 32, 11),
                    mi(&mut mb, 1, 0),
                    mi(&mut mb, 1, 0),
                    mi(&mut mb, 1, 0),
                    None,
                ]);
                uavs.push(node(&mut mb, ops));
            }
            Res::CmpSampler => {
                ops.extend([mi(&mut mb, 32, 1), None]);
                samplers.push(node(&mut mb, ops));
            }
        }
    }
    let list = |mb: &mut Mb, v: Vec<Option<MdId>>| {
        if v.is_empty() { None } else { node(mb, v) }
    };
    let (srvs, uavs, samplers) = (
        list(&mut mb, srvs),
        list(&mut mb, uavs),
        list(&mut mb, samplers),
    );
    let resources = node(&mut mb, vec![srvs, uavs, None, samplers]);
    let (signatures, props) = if pixel {
        let ins = sig_list(&mut mb, &PS_INPUTS);
        let outs = sig_list(&mut mb, &PS_OUTPUTS);
        (node(&mut mb, vec![ins, outs, None]), None)
    } else if kind == ProgramKind::Vertex {
        let (ins, outs) = vs.unwrap_or((&[], &VS_OUTPUTS));
        let ins = if ins.is_empty() {
            None
        } else {
            sig_list(&mut mb, ins)
        };
        let outs = sig_list(&mut mb, outs);
        (node(&mut mb, vec![ins, outs, None]), None)
    } else {
        let t = [4, 1, 1].map(|x| mi(&mut mb, 32, x));
        let t = node(&mut mb, t.to_vec());
        let props = [mi(&mut mb, 32, 4), t];
        (None, node(&mut mb, props.to_vec()))
    };
    mb.ret();
    let (mut m, fi) = mb.finish();
    EntryPoint {
        name: "main",
        version,
        shader_model: sm,
        signatures,
        resources,
        module_resources: resources,
        properties: props,
    }
    .declare(&mut m, fi);
    let bitcode = write_module(&m).expect("the writer takes the built module");
    let program = ProgramVersion {
        kind,
        major: 6,
        minor: 8,
    };
    let dxil = dxil_part(program, (1, 8), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

fn float(mb: &mut Mb, x: f32) -> ValueId {
    let f32t = mb.t(Type::Float);
    mb.c(f32t, Constant::Float(u64::from(x.to_bits())))
}

/// `%dx.types.ResRet.f32`.
fn resret(mb: &mut Mb) -> TypeId {
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    mb.named("dx.types.ResRet.f32", vec![f32t, f32t, f32t, f32t, i32t])
}

/// The operands of a comparison sample of a `Texture2D`: texture, sampler, `uv` (c2,
/// c3 undefined) and the immediate `offset` (o2 undefined; `None`: all undefined).
fn head(
    mb: &mut Mb,
    t: ValueId,
    s: ValueId,
    uv: [ValueId; 2],
    offset: Option<[i64; 2]>,
) -> Vec<ValueId> {
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let (fu, iu) = (mb.undef(f32t), mb.undef(i32t));
    let o = offset.map_or([iu, iu], |o| o.map(|x| mb.ci(32, x)));
    vec![t, s, uv[0], uv[1], fu, fu, o[0], o[1], iu]
}

/// `sampleCmpBias.f32(t, s, uv, offset, reference, bias, clamp)`'s red channel.
fn cmp_bias(
    mb: &mut Mb,
    head: Vec<ValueId>,
    reference: ValueId,
    bias: ValueId,
    clamp: Option<ValueId>,
) -> ValueId {
    let f32t = mb.t(Type::Float);
    let clamp = clamp.unwrap_or_else(|| mb.undef(f32t));
    let mut args = head;
    args.extend([reference, bias, clamp]);
    let rt = resret(mb);
    let r = mb.dx("sampleCmpBias.f32", DxOp::SampleCmpBias, &args, rt);
    mb.extract_value(r, 0, f32t)
}

/// `sampleCmpGrad.f32(t, s, uv, offset, reference, (gx, 0), (0, gy), clamp)`'s red
/// channel.
fn cmp_grad(
    mb: &mut Mb,
    head: Vec<ValueId>,
    reference: ValueId,
    [gx, gy]: [ValueId; 2],
    clamp: Option<ValueId>,
) -> ValueId {
    let f32t = mb.t(Type::Float);
    let (fu, zero) = (mb.undef(f32t), float(mb, 0.0));
    let clamp = clamp.unwrap_or(fu);
    let mut args = head;
    args.extend([reference, gx, zero, fu, zero, gy, fu, clamp]);
    let rt = resret(mb);
    let r = mb.dx("sampleCmpGrad.f32", DxOp::SampleCmpGrad, &args, rt);
    mb.extract_value(r, 0, f32t)
}

/// The `ps_6_8` program of `sample_cmp_bias.toml`:
///
/// ```hlsl
/// Texture2D<float> D : register(t0);
/// SamplerComparisonState S : register(s0);
/// float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD) : SV_Target {
///     return float4(D.SampleCmpBias(S, uv, 0.5, 0.0),
///                   D.SampleCmpBias(S, uv, 0.5, -1.0),
///                   D.SampleCmpBias(S, uv, 0.5, 1.0, int2(1, 0)),
///                   D.SampleCmpBias(S, uv, 0.5, -1.0, int2(0, 0), 2.0));
/// }
/// ```
fn bias_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let t = mb.handle(0, 0, 0);
    let s = mb.handle(3, 0, 0);
    let (zero, one, iu) = (mb.ci(32, 0), mb.ci(32, 1), mb.undef(i32t));
    let uv = [0, 1].map(|col| {
        let c = mb.ci(8, col);
        mb.dx("loadInput.f32", DxOp::LoadInput, &[one, zero, c, iu], f32t)
    });
    let reference = float(&mut mb, 0.5);
    let [b0, bm1, b1, two] = [0.0, -1.0, 1.0, 2.0].map(|x| float(&mut mb, x));
    let h = head(&mut mb, t, s, uv, None);
    let x = cmp_bias(&mut mb, h, reference, b0, None);
    let h = head(&mut mb, t, s, uv, None);
    let y = cmp_bias(&mut mb, h, reference, bm1, None);
    let h = head(&mut mb, t, s, uv, Some([1, 0]));
    let z = cmp_bias(&mut mb, h, reference, b1, None);
    let h = head(&mut mb, t, s, uv, Some([0, 0]));
    let w = cmp_bias(&mut mb, h, reference, bm1, Some(two));
    for (col, v) in [x, y, z, w].into_iter().enumerate() {
        let c = mb.ci(8, col as i64);
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, c, v],
            void,
        );
    }
    finish(mb, ProgramKind::Pixel, &[Res::Texture, Res::CmpSampler])
}

/// The `ps_6_8` program of `heap_ps.toml`, every resource from the SM 6.6 descriptor
/// heaps:
///
/// ```hlsl
/// float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD) : SV_Target {
///     Texture2D<float> D = ResourceDescriptorHeap[0];
///     ByteAddressBuffer B = ResourceDescriptorHeap[1];
///     SamplerComparisonState S = SamplerDescriptorHeap[0];
///     float4 b = asfloat(B.Load4(0));
///     return float4(b.xyz, D.SampleCmpBias(S, uv, 0.5, 0.0));
/// }
/// ```
fn heap_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let ht = mb.handle_ty();
    let props_ty = mb.named("dx.types.ResourceProperties", vec![i32t, i32t]);
    let (no, yes) = (mb.ci(1, 0), mb.ci(1, 1));
    // (heap slot, sampler heap, DxilResourceProperties' two words).
    let handle = |mb: &mut Mb, slot: i64, sampler: bool, w: [i64; 2]| {
        let slot = mb.ci(32, slot);
        let h = mb.dx(
            "createHandleFromHeap",
            DxOp::CreateHandleFromHeap,
            &[slot, if sampler { yes } else { no }, no],
            ht,
        );
        let w = w.map(|x| mb.ci(32, x));
        let props = mb.c(props_ty, Constant::Aggregate(w.to_vec()));
        mb.dx("annotateHandle", DxOp::AnnotateHandle, &[h, props], ht)
    };
    // Texture2D<float>: kind 2, component type F32 (9) × 1; ByteAddressBuffer: kind 11;
    // SamplerComparisonState: kind 14 with the comparison bit (15).
    let t = handle(&mut mb, 0, false, [2, 9 | 1 << 8]);
    let b = handle(&mut mb, 1, false, [11, 0]);
    let s = handle(&mut mb, 0, true, [14 | 1 << 15, 0]);
    let (zero, one, iu) = (mb.ci(32, 0), mb.ci(32, 1), mb.undef(i32t));
    let uv = [0, 1].map(|col| {
        let c = mb.ci(8, col);
        mb.dx("loadInput.f32", DxOp::LoadInput, &[one, zero, c, iu], f32t)
    });
    let [x, y, z, _] = load4(&mut mb, b, zero);
    let (reference, b0) = (float(&mut mb, 0.5), float(&mut mb, 0.0));
    let h = head(&mut mb, t, s, uv, None);
    let w = cmp_bias(&mut mb, h, reference, b0, None);
    for (col, v) in [x, y, z, w].into_iter().enumerate() {
        let c = mb.ci(8, col as i64);
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, c, v],
            void,
        );
    }
    finish(mb, ProgramKind::Pixel, &[])
}

/// The `vs_6_8` program of `heap_vs.toml`, every resource from the SM 6.6 descriptor
/// heaps:
///
/// ```hlsl
/// void main(uint id : SV_VertexID, out float4 pos : SV_Position,
///           out float2 t : TEXCOORD) {
///     Texture2D<float> D = ResourceDescriptorHeap[0];
///     ByteAddressBuffer B = ResourceDescriptorHeap[1];
///     SamplerComparisonState S = SamplerDescriptorHeap[0];
///     pos = asfloat(B.Load4(16 * id));
///     float4 e = asfloat(B.Load4(48));
///     t = float2(D.SampleCmpLevel(S, e.xy, e.z, 0), e.w);
/// }
/// ```
fn heap_vs_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let ht = mb.handle_ty();
    let props_ty = mb.named("dx.types.ResourceProperties", vec![i32t, i32t]);
    let (no, yes) = (mb.ci(1, 0), mb.ci(1, 1));
    let handle = |mb: &mut Mb, slot: i64, sampler: bool, w: [i64; 2]| {
        let slot = mb.ci(32, slot);
        let h = mb.dx(
            "createHandleFromHeap",
            DxOp::CreateHandleFromHeap,
            &[slot, if sampler { yes } else { no }, no],
            ht,
        );
        let w = w.map(|x| mb.ci(32, x));
        let props = mb.c(props_ty, Constant::Aggregate(w.to_vec()));
        mb.dx("annotateHandle", DxOp::AnnotateHandle, &[h, props], ht)
    };
    let t = handle(&mut mb, 0, false, [2, 9 | 1 << 8]);
    let b = handle(&mut mb, 1, false, [11, 0]);
    let s = handle(&mut mb, 0, true, [14 | 1 << 15, 0]);
    let (zero, one, iu) = (mb.ci(32, 0), mb.ci(32, 1), mb.undef(i32t));
    let c0 = mb.ci(8, 0);
    let id = mb.dx(
        "loadInput.i32",
        DxOp::LoadInput,
        &[zero, zero, c0, iu],
        i32t,
    );
    let k16 = mb.ci(32, 16);
    let at = mb.bin(BinOp::Mul, id, k16, i32t);
    let pos = load4(&mut mb, b, at);
    let k48 = mb.ci(32, 48);
    let [u, v, reference, w] = load4(&mut mb, b, k48);
    let mut args = head(&mut mb, t, s, [u, v], None);
    let lod = float(&mut mb, 0.0);
    args.extend([reference, lod]);
    let rt = resret(&mut mb);
    let r = mb.dx("sampleCmpLevel.f32", DxOp::SampleCmpLevel, &args, rt);
    let x = mb.extract_value(r, 0, f32t);
    for (col, p) in pos.into_iter().enumerate() {
        let c = mb.ci(8, col as i64);
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, c, p],
            void,
        );
    }
    for (col, p) in [x, w].into_iter().enumerate() {
        let c = mb.ci(8, col as i64);
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[one, zero, c, p],
            void,
        );
    }
    finish_with(
        mb,
        ProgramKind::Vertex,
        &[],
        Some((
            &[("SV_VertexID", 1, 1, 0, 0)],
            &[("SV_Position", 3, 4, 0, 0), ("TEXCOORD", 0, 2, 1, 0)],
        )),
    )
}

/// The four floats at byte `addr` of raw buffer `h`.
fn load4(mb: &mut Mb, h: ValueId, addr: ValueId) -> [ValueId; 4] {
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let rt = resret(mb);
    let u = mb.undef(i32t);
    let (mask, align) = (mb.ci(8, 0xf), mb.ci(32, 4));
    let r = mb.dx(
        "rawBufferLoad.f32",
        DxOp::RawBufferLoad,
        &[h, addr, u, mask, align],
        rt,
    );
    [0, 1, 2, 3].map(|k| mb.extract_value(r, k, f32t))
}

/// The `cs_6_8` program of `sample_cmp_grad.toml`:
///
/// ```hlsl
/// Texture2D<float> D : register(t0);
/// SamplerComparisonState S : register(s0);
/// RWByteAddressBuffer In : register(u0), Out : register(u1);
/// [numthreads(4, 1, 1)]
/// void main(uint t : SV_GroupIndex) {
///     float4 a = asfloat(In.Load4(32 * t)), b = asfloat(In.Load4(32 * t + 16));
///     float2 uv = a.xy, dx = float2(a.w, 0), dy = float2(0, b.x);
///     float ref = a.z, clamp = b.y, lod = b.z;
///     Out.Store4(16 * t, asuint(float4(
///         D.SampleCmpGrad(S, uv, ref, dx, dy),
///         D.SampleCmpGrad(S, uv, ref, dx, dy, int2(-1, 1)),
///         D.SampleCmpGrad(S, uv, ref, dx, dy, int2(0, 0), clamp),
///         D.SampleCmpLevel(S, uv, ref, lod))));
/// }
/// ```
fn grad_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let t = mb.handle(0, 0, 0);
    let s = mb.handle(3, 0, 0);
    let input = mb.handle(1, 0, 0);
    let out = mb.handle(1, 1, 1);
    let index = mb.dx(
        "flattenedThreadIdInGroup.i32",
        DxOp::FlattenedThreadIdInGroup,
        &[],
        i32t,
    );
    let (k32, k16) = (mb.ci(32, 32), mb.ci(32, 16));
    let at = mb.bin(BinOp::Mul, index, k32, i32t);
    let [u, v, reference, gx] = load4(&mut mb, input, at);
    let at = mb.bin(BinOp::Add, at, k16, i32t);
    let [gy, clamp, lod, _] = load4(&mut mb, input, at);
    let h = head(&mut mb, t, s, [u, v], None);
    let a = cmp_grad(&mut mb, h, reference, [gx, gy], None);
    let h = head(&mut mb, t, s, [u, v], Some([-1, 1]));
    let b = cmp_grad(&mut mb, h, reference, [gx, gy], None);
    let h = head(&mut mb, t, s, [u, v], Some([0, 0]));
    let c = cmp_grad(&mut mb, h, reference, [gx, gy], Some(clamp));
    let mut args = head(&mut mb, t, s, [u, v], None);
    args.extend([reference, lod]);
    let rt = resret(&mut mb);
    let r = mb.dx("sampleCmpLevel.f32", DxOp::SampleCmpLevel, &args, rt);
    let d = mb.extract_value(r, 0, f32t);
    let base = mb.bin(BinOp::Mul, index, k16, i32t);
    for (k, x) in [a, b, c, d].into_iter().enumerate() {
        let word = mb.cast(CastOp::BitCast, x, i32t);
        let off = mb.ci(32, 4 * k as i64);
        let addr = mb.bin(BinOp::Add, base, off, i32t);
        mb.store_word(out, addr, word);
    }
    finish(
        mb,
        ProgramKind::Compute,
        &[Res::Texture, Res::CmpSampler, Res::RawUav, Res::RawUav],
    )
}

/// The containers of `tests/jobs/sm68/`, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("sample_cmp_bias.ps.dxil", bias_program()),
        ("sample_cmp_grad.dxil", grad_program()),
        ("heap.ps.dxil", heap_program()),
        ("heap.vs.dxil", heap_vs_program()),
    ]
}

#[test]
fn the_committed_containers_are_regenerated_unchanged() {
    common::check_built_files(FOLDER, containers());
}

/// Runs the job `name` of [`FOLDER`] on both engines; every expectation passes.
fn run(name: &str, count: usize) {
    let path = common::root().join(FOLDER).join(format!("{name}.toml"));
    let (failures, counts) = common::expect_both(&path, name).unwrap_or_else(|e| panic!("{e}"));
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
    assert_eq!(counts, (count, 0));
}

/// Proposal 0014: `SampleCmpBias` takes `SampleBias`'s LOD — the pixel quad's implicit
/// LOD plus the bias — then compares each texel and filters the results; its immediate
/// offset moves the texels read in the selected mip's texel units, and its clamp raises
/// the LOD. Every value of the 4 × 4 target is derived in `sample_cmp_bias.toml`.
#[test]
fn sample_cmp_bias_takes_the_quads_lod_plus_the_bias() {
    run("sample_cmp_bias", 1);
}

/// Proposal 0014: `SampleCmpGrad` takes `SampleGrad`'s LOD from its gradients (a
/// fractional LOD blends two mips under a linear mip filter, a LOD past the last mip
/// reads it), with offsets and a clamp; `SampleCmpLevel` (SM 6.7) its explicit LOD.
/// Every value is derived in `sample_cmp_grad.toml`.
#[test]
fn sample_cmp_grad_takes_the_lod_of_its_gradients() {
    run("sample_cmp_grad", 1);
}

/// SM 6.6 dynamic resources in a pixel program: a texture and a raw buffer from
/// `ResourceDescriptorHeap`, a comparison sampler from `SamplerDescriptorHeap`
/// (DirectX-Specs "HLSL SM 6.6 Dynamic Resources"), bound by `[[heap]]` and
/// `[[sampler_heap]]` entries of a draw job. Every pixel is derived in `heap_ps.toml`.
#[test]
fn a_pixel_program_reads_the_descriptor_heaps() {
    run("heap_ps", 1);
}

/// SM 6.6 dynamic resources in a vertex program: the vertices' positions from a raw
/// buffer of `ResourceDescriptorHeap`, indexed by `SV_VertexID`, and a comparison sample
/// of a heap texture with a `SamplerDescriptorHeap` sampler (DirectX-Specs "HLSL SM 6.6
/// Dynamic Resources": the heaps are reachable from every stage). Every pixel is derived
/// in `heap_vs.toml`.
#[test]
fn a_vertex_program_reads_the_descriptor_heaps() {
    run("heap_vs", 1);
}

/// A `kind` program (compute or vertex) with `op` (`sampleCmpBias` or `sampleCmpGrad`)
/// on a texture and a comparison sampler, with `bias` as the bias operand; the compute
/// program stores the result to a raw UAV, the vertex program to `SV_Position`.
fn one_op(kind: ProgramKind, op: DxOp, bias: f32) -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let t = mb.handle(0, 0, 0);
    let s = mb.handle(3, 0, 0);
    let out = (kind == ProgramKind::Compute).then(|| mb.handle(1, 0, 0));
    let half = float(&mut mb, 0.5);
    let h = head(&mut mb, t, s, [half, half], None);
    let x = if op == DxOp::SampleCmpBias {
        let b = float(&mut mb, bias);
        cmp_bias(&mut mb, h, half, b, None)
    } else {
        cmp_grad(&mut mb, h, half, [half, half], None)
    };
    let zero = mb.ci(32, 0);
    let mut resources = vec![Res::Texture, Res::CmpSampler];
    if let Some(out) = out {
        let i32t = mb.int(32);
        let word = mb.cast(CastOp::BitCast, x, i32t);
        mb.store_word(out, zero, word);
        resources.push(Res::RawUav);
    } else {
        let void = mb.void();
        for col in 0..4 {
            let c = mb.ci(8, col);
            mb.dx(
                "storeOutput.f32",
                DxOp::StoreOutput,
                &[zero, zero, c, x],
                void,
            );
        }
    }
    finish(mb, kind, &resources)
}

/// Loads `bytes`; the error's text when it is refused as invalid.
fn refusal(bytes: &[u8], what: &str) -> String {
    match load(bytes, &LoadOptions::default()) {
        Err(e @ LowerError::Invalid { .. }) => e.to_string(),
        Err(e) => panic!("{what}: not refused as invalid: {e}"),
        Ok(_) => panic!("{what} lowered"),
    }
}

/// DXIL validation's `Instr.ImmBiasForSampleB`, which proposal 0014 extends to
/// `sampleCmpBias`: an immediate bias outside [−16, 15.99] is refused at load, naming the
/// operation and the value; the ends of the range load.
#[test]
fn an_immediate_bias_outside_the_range_is_refused() {
    for ok in [-16.0, 15.99] {
        let bytes = one_op(ProgramKind::Compute, DxOp::SampleCmpBias, ok);
        load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("bias {ok}: {e}"));
    }
    for bad in [16.0f32, -16.5] {
        let bytes = one_op(ProgramKind::Compute, DxOp::SampleCmpBias, bad);
        let text = refusal(&bytes, &format!("bias {bad}"));
        for part in ["SampleCmpBias", "[-16, 15.99]", &format!("{bad}")] {
            assert!(text.contains(part), "{text:?} does not say {part:?}");
        }
    }
}

/// Proposal 0014: "`SampleCmpBias` is only available in the pixel and compute shader
/// stages where implicit derivatives can be calculated" (and mesh and amplification
/// programs, DXC's stage mask); "`SampleCmpGrad` is available in all shader stages". In
/// a vertex program the first is refused at load, naming the operation and the stage;
/// the second lowers and validates there.
#[test]
fn sample_cmp_bias_needs_a_quad_and_sample_cmp_grad_does_not() {
    let text = refusal(
        &one_op(ProgramKind::Vertex, DxOp::SampleCmpBias, 0.0),
        "SampleCmpBias in a vertex program",
    );
    assert!(
        text.contains("SampleCmpBias") && text.contains("vertex"),
        "{text}"
    );
    for kind in [ProgramKind::Vertex, ProgramKind::Compute] {
        let bytes = one_op(kind, DxOp::SampleCmpGrad, 0.0);
        let p = load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        dxlane::ir::validate(&p.shader).unwrap();
    }
}
