//! Stage inputs and outputs of vertex and pixel programs: the element tables (the
//! input/output declarations joined with the container's signature parts), where each
//! element lives in a lane's input and output words, and the operands that read and write
//! them (`v#`, `v[r#.x + n]`, `vCoverage`, `vInnerCoverage`, `o#`, `o[r#.x + n]`, `oDepth`,
//! `oDepthGE`, `oDepthLE`, `oMask`, `oStencilRef`).
//!
//! # The element table
//!
//! The signature is the truth for names, types and packing; the declarations for the
//! interpolation mode and the system value:
//!
//! - **One element per signature element** (stream 0), in register order: its semantic
//!   name and index, register, mask and component type come from the signature; its system
//!   value from the declaration of that register (`dcl_*_siv`/`_sgv`), else from the
//!   signature; a pixel input's interpolation from its `dcl_input_ps*` mode. Signature
//!   elements the program never declares (an input it does not read) are kept: D3D links
//!   stages and checks input layouts against the whole signature.
//! - **Declared components no signature element covers** (a program without signature
//!   parts, or one whose declarations disagree with them) become elements of their own,
//!   named after their system value (`SV_Position`, `SV_VertexID`, …, indexed 0, 1, … in
//!   register order), or, for arbitrary values, `TEXCOORD<n>` (`SV_Target<n>` for a
//!   pixel output) where `n` is the register.
//! - **Pixel outputs at `o#` are render targets** (`SV_Target`): D3D11.3 gives a pixel
//!   program's `o0`…`o7` to render targets 0…7 whatever the signature's system value
//!   column says (fxc and vkd3d both write `NONE` there).
//! - **Vertex inputs and all outputs are not interpolated** (`interp undefined`), and
//!   neither are the rasterizer's own pixel inputs declared with `dcl_input_ps_sgv`
//!   (`SV_IsFrontFace`, `SV_SampleIndex`, `SV_PrimitiveID`) or `vCoverage` and
//!   `vInnerCoverage`.
//!
//! # Words
//!
//! Signature register `n` is words `4n … 4n + 3` (`slot = 4n`); elements packed into one
//! register share its words, each with its own mask. Elements without a register follow
//! the last register, a row of four words each (their value in x, as the DXIL lowering
//! lays out its unpacked elements), in this order: `vCoverage`, `vInnerCoverage`; the
//! depth output (`oDepth`, `oDepthGE` or `oDepthLE`), `oMask`, `oStencilRef`. Register
//! numbers are bounded by D3D11's register counts (32 input and output registers, 8
//! pixel outputs), so the word counts are small whatever the program says.
//!
//! # Indexing: split per register
//!
//! A `dcl_indexrange v1, 4` does not merge the four signature elements it spans into one
//! element of four rows: elements stay exactly the signature (what the pipeline links by),
//! each with `rows = 1`. The range is a property of the instructions that index it:
//! `v[r0.x + n]` lowers to `input_indexed` from the word of the range's first register
//! with `rows` = its count, so a row outside the range reads 0 (and an indexed write
//! outside it is dropped) instead of reaching a neighbouring element. An index whose
//! immediate part lies in no declared range is bounded by the whole register file.

use std::collections::{BTreeSet, HashMap};

use super::Lowerer;
use super::operands::comps;
use crate::container::signature::{ComponentType as SigType, Signature, SystemValue};
use crate::dxbc::{Index, Interpolation, Operand, Program, RegisterType, SystemName};
use crate::ir::io::NO_REGISTER;
use crate::ir::{Builder, ComponentType, Inst, Interp, IoElement, Reg, SourceLoc, Stage, SysValue};
use crate::lower::LowerError;

/// Input registers of vertex and pixel programs, and output registers of vertex programs
/// (D3D11.3 §23, `D3D11_VS_INPUT_REGISTER_COUNT`, `D3D11_VS_OUTPUT_REGISTER_COUNT`,
/// `D3D11_PS_INPUT_REGISTER_COUNT`: 32 each).
pub const MAX_IO_REGISTERS: u32 = 32;
/// Output registers of pixel programs: the render targets (D3D11.3,
/// `D3D11_PS_OUTPUT_REGISTER_COUNT` = 8, `SV_Target0` … `SV_Target7`).
pub const MAX_PIXEL_OUTPUTS: u32 = 8;

/// An input or output declaration, as the element table needs it.
#[derive(Debug, Clone)]
pub(super) struct IoDecl {
    /// An output (`dcl_output*`) rather than an input.
    pub output: bool,
    /// The declared register's type (`v#`, `o#`, or a registerless one like `oDepth`).
    pub register: RegisterType,
    /// The `v#`/`o#` number (`None` for registerless ones).
    pub number: Option<u32>,
    /// The declared components.
    pub mask: u8,
    /// The system value of `dcl_*_siv`/`dcl_*_sgv`.
    pub sv: Option<SystemName>,
    /// The interpolation mode of `dcl_input_ps`/`dcl_input_ps_siv`.
    pub interp: Option<Interpolation>,
    /// The declaration's instruction index.
    pub at: usize,
    /// A patch constant (`vpc#`, or `o#` of a hull fork or join phase) rather than a
    /// register of the stage's main file.
    pub patch: bool,
}

/// A `dcl_indexrange`: registers `first … first + count - 1` may be indexed at run time.
#[derive(Debug, Clone, Copy)]
pub(super) struct IndexRange {
    /// Output registers (`o#`) rather than inputs.
    pub output: bool,
    /// The first register.
    pub first: u32,
    /// How many registers.
    pub count: u32,
    /// Patch-constant registers (`vpc#`, `o#` of a fork or join phase).
    pub patch: bool,
}

/// Where the stage's registers live in its words.
#[derive(Debug, Default)]
pub(super) struct IoLayout {
    /// `v0 … v(input_regs - 1)` are input words `0 … 4·input_regs - 1`.
    pub input_regs: u32,
    /// `o0 … o(output_regs - 1)` likewise in the output words.
    pub output_regs: u32,
    /// The word of each registerless input or output (`vCoverage`, `oDepth`, …).
    pub special: HashMap<RegisterType, u32>,
    /// The declared index ranges.
    pub ranges: Vec<IndexRange>,
    /// Hull and domain programs: patch-constant registers (a hull's fork and join
    /// outputs, a domain's or join phase's `vpc#`).
    pub patch_regs: u32,
    /// The output word (hull) or input word (domain) of patch-constant register 0.
    pub patch_base: u32,
    /// A hull's join phases: the input word of `vpc0`.
    pub vpc_base: u32,
    /// A hull's input word of output control point 0 (`vocp`).
    pub ocp_base: u32,
    /// Control points the `v[k][n]`/`vicp[k][n]` reads may name.
    pub points_in: u32,
    /// Output control points `vocp[k][n]` may name.
    pub points_out: u32,
}

/// Whether `r` is a registerless input or output, and which side.
pub(super) fn special_side(r: RegisterType) -> Option<bool> {
    use RegisterType as R;
    match r {
        R::InputCoverageMask | R::InnerCoverage => Some(false),
        R::InputPrimitiveId | R::InputGsInstanceId | R::OutputControlPointId => Some(false),
        R::OutputDepth
        | R::OutputDepthGreaterEqual
        | R::OutputDepthLessEqual
        | R::OutputCoverageMask
        | R::OutputStencilRef => Some(true),
        _ => None,
    }
}

/// Whether a program of `stage` has the registerless input or output `r`: the coverage
/// and depth registers are a pixel program's, `vPrim` and `vGSInstanceID` a geometry
/// program's.
pub(super) fn special_in(stage: Stage, r: RegisterType) -> bool {
    use RegisterType as R;
    match r {
        R::InputGsInstanceId => stage == Stage::Geometry,
        R::InputPrimitiveId => matches!(stage, Stage::Geometry | Stage::Hull | Stage::Domain),
        R::OutputControlPointId => stage == Stage::Hull,
        _ => stage == Stage::Pixel && special_side(r).is_some(),
    }
}

/// The order registerless elements take after the registers (see the module doc).
fn special_rank(r: RegisterType) -> u8 {
    use RegisterType as R;
    match r {
        R::InputPrimitiveId => 0,
        R::InputGsInstanceId | R::OutputControlPointId => 1,
        R::InputCoverageMask
        | R::OutputDepth
        | R::OutputDepthGreaterEqual
        | R::OutputDepthLessEqual => 0,
        R::InnerCoverage | R::OutputCoverageMask => 1,
        _ => 2,
    }
}

/// A registerless element's semantic, system value and type.
fn special_element(r: RegisterType) -> (&'static str, SysValue, ComponentType) {
    use RegisterType as R;
    match r {
        R::InputCoverageMask | R::OutputCoverageMask => {
            ("SV_Coverage", SysValue::Coverage, ComponentType::UInt)
        }
        R::InnerCoverage => (
            "SV_InnerCoverage",
            SysValue::InnerCoverage,
            ComponentType::UInt,
        ),
        R::OutputDepthGreaterEqual => (
            "SV_DepthGreaterEqual",
            SysValue::DepthGreaterEqual,
            ComponentType::Float,
        ),
        R::OutputDepthLessEqual => (
            "SV_DepthLessEqual",
            SysValue::DepthLessEqual,
            ComponentType::Float,
        ),
        R::OutputStencilRef => ("SV_StencilRef", SysValue::StencilRef, ComponentType::UInt),
        R::InputPrimitiveId => ("SV_PrimitiveID", SysValue::PrimitiveId, ComponentType::UInt),
        R::InputGsInstanceId => (
            "SV_GSInstanceID",
            SysValue::GsInstanceId,
            ComponentType::UInt,
        ),
        R::OutputControlPointId => (
            "SV_OutputControlPointID",
            SysValue::OutputControlPointId,
            ComponentType::UInt,
        ),
        _ => ("SV_Depth", SysValue::Depth, ComponentType::Float),
    }
}

/// The system value a declaration names, or `None` for one a vertex or pixel program
/// cannot carry (the tessellation factors).
fn sv_of_name(n: SystemName) -> Option<SysValue> {
    use SystemName as N;
    Some(match n {
        N::Undefined => SysValue::None,
        N::Position => SysValue::Position,
        N::ClipDistance => SysValue::ClipDistance,
        N::CullDistance => SysValue::CullDistance,
        N::RenderTargetArrayIndex => SysValue::RenderTargetArrayIndex,
        N::ViewportArrayIndex => SysValue::ViewportArrayIndex,
        N::VertexId => SysValue::VertexId,
        N::PrimitiveId => SysValue::PrimitiveId,
        N::InstanceId => SysValue::InstanceId,
        N::IsFrontFace => SysValue::IsFrontFace,
        N::SampleIndex => SysValue::SampleIndex,
        N::Barycentrics => SysValue::Barycentrics,
        N::ShadingRate => SysValue::ShadingRate,
        N::CullPrimitive => SysValue::CullPrimitive,
        N::FinalQuadUEq0EdgeTessFactor
        | N::FinalQuadVEq0EdgeTessFactor
        | N::FinalQuadUEq1EdgeTessFactor
        | N::FinalQuadVEq1EdgeTessFactor
        | N::FinalTriUEq0EdgeTessFactor
        | N::FinalTriVEq0EdgeTessFactor
        | N::FinalTriWEq0EdgeTessFactor
        | N::FinalLineDetailTessFactor
        | N::FinalLineDensityTessFactor => SysValue::TessFactor,
        N::FinalQuadUInsideTessFactor
        | N::FinalQuadVInsideTessFactor
        | N::FinalTriInsideTessFactor => SysValue::InsideTessFactor,
    })
}

/// The system value of a signature element's `D3D_NAME` (unknown codes carry none).
fn sv_of_signature(v: SystemValue) -> SysValue {
    use SystemValue as V;
    match v {
        V::Position => SysValue::Position,
        V::ClipDistance => SysValue::ClipDistance,
        V::CullDistance => SysValue::CullDistance,
        V::RenderTargetArrayIndex => SysValue::RenderTargetArrayIndex,
        V::ViewportArrayIndex => SysValue::ViewportArrayIndex,
        V::VertexId => SysValue::VertexId,
        V::PrimitiveId => SysValue::PrimitiveId,
        V::InstanceId => SysValue::InstanceId,
        V::IsFrontFace => SysValue::IsFrontFace,
        V::SampleIndex => SysValue::SampleIndex,
        V::Barycentrics => SysValue::Barycentrics,
        V::ShadingRate => SysValue::ShadingRate,
        V::CullPrimitive => SysValue::CullPrimitive,
        V::Target => SysValue::Target,
        V::Depth => SysValue::Depth,
        V::Coverage => SysValue::Coverage,
        V::DepthGreaterEqual => SysValue::DepthGreaterEqual,
        V::DepthLessEqual => SysValue::DepthLessEqual,
        V::StencilRef => SysValue::StencilRef,
        V::InnerCoverage => SysValue::InnerCoverage,
        V::FinalQuadEdgeTessFactor
        | V::FinalTriEdgeTessFactor
        | V::FinalLineDetailTessFactor
        | V::FinalLineDensityTessFactor => SysValue::TessFactor,
        V::FinalQuadInsideTessFactor | V::FinalTriInsideTessFactor => SysValue::InsideTessFactor,
        _ => SysValue::None,
    }
}

/// The HLSL spelling of a system value (for elements no signature names).
fn sv_semantic(sv: SysValue) -> &'static str {
    match sv {
        SysValue::None => "TEXCOORD",
        SysValue::Position => "SV_Position",
        SysValue::ClipDistance => "SV_ClipDistance",
        SysValue::CullDistance => "SV_CullDistance",
        SysValue::RenderTargetArrayIndex => "SV_RenderTargetArrayIndex",
        SysValue::ViewportArrayIndex => "SV_ViewportArrayIndex",
        SysValue::VertexId => "SV_VertexID",
        SysValue::PrimitiveId => "SV_PrimitiveID",
        SysValue::InstanceId => "SV_InstanceID",
        SysValue::IsFrontFace => "SV_IsFrontFace",
        SysValue::SampleIndex => "SV_SampleIndex",
        SysValue::Coverage => "SV_Coverage",
        SysValue::InnerCoverage => "SV_InnerCoverage",
        SysValue::Target => "SV_Target",
        SysValue::Depth => "SV_Depth",
        SysValue::DepthGreaterEqual => "SV_DepthGreaterEqual",
        SysValue::DepthLessEqual => "SV_DepthLessEqual",
        SysValue::StencilRef => "SV_StencilRef",
        SysValue::ViewId => "SV_ViewID",
        SysValue::Barycentrics => "SV_Barycentrics",
        SysValue::ShadingRate => "SV_ShadingRate",
        SysValue::CullPrimitive => "SV_CullPrimitive",
        SysValue::StartVertexLocation => "SV_StartVertexLocation",
        SysValue::StartInstanceLocation => "SV_StartInstanceLocation",
        SysValue::GsInstanceId => "SV_GSInstanceID",
        SysValue::OutputControlPointId => "SV_OutputControlPointID",
        SysValue::DomainLocation => "SV_DomainLocation",
        SysValue::TessFactor => "SV_TessFactor",
        SysValue::InsideTessFactor => "SV_InsideTessFactor",
    }
}

/// The type of an element no signature describes: the integer system values are uint,
/// everything else float.
fn sv_component(sv: SysValue) -> ComponentType {
    match sv {
        SysValue::VertexId
        | SysValue::InstanceId
        | SysValue::PrimitiveId
        | SysValue::SampleIndex
        | SysValue::IsFrontFace
        | SysValue::Coverage
        | SysValue::InnerCoverage
        | SysValue::StencilRef
        | SysValue::RenderTargetArrayIndex
        | SysValue::ViewportArrayIndex
        | SysValue::ViewId
        | SysValue::ShadingRate
        | SysValue::CullPrimitive
        | SysValue::GsInstanceId
        | SysValue::OutputControlPointId => ComponentType::UInt,
        _ => ComponentType::Float,
    }
}

/// The IR type of a signature component type (an unspecified type reads as float).
fn component_of(t: SigType) -> ComponentType {
    match t {
        SigType::Uint32 | SigType::Uint16 | SigType::Uint64 => ComponentType::UInt,
        SigType::Sint32 | SigType::Sint16 | SigType::Sint64 => ComponentType::SInt,
        _ => ComponentType::Float,
    }
}

/// The IR interpolation of a declared mode.
fn interp_of(m: Interpolation) -> Interp {
    use Interpolation as M;
    match m {
        M::Undefined => Interp::Undefined,
        M::Constant => Interp::Constant,
        M::Linear => Interp::Linear,
        M::LinearCentroid => Interp::LinearCentroid,
        M::LinearNoPerspective => Interp::LinearNoPerspective,
        M::LinearNoPerspectiveCentroid => Interp::LinearNoPerspectiveCentroid,
        M::LinearSample => Interp::LinearSample,
        M::LinearNoPerspectiveSample => Interp::LinearNoPerspectiveSample,
    }
}

fn decl_loc(p: &Program, i: usize) -> String {
    SourceLoc::Dxbc {
        index: u32::try_from(i).unwrap_or(u32::MAX),
        token: p.instructions.get(i).map_or(0, |x| x.offset),
    }
    .to_string()
}

/// What [`layout`] reads.
#[derive(Clone, Copy)]
pub(super) struct IoSource<'a> {
    /// The program.
    pub p: &'a Program,
    /// Its stage (vertex or pixel).
    pub stage: Stage,
    /// Its input and output declarations.
    pub decls: &'a [IoDecl],
    /// Its `dcl_indexrange`s.
    pub ranges: &'a [IndexRange],
    /// The registerless inputs and outputs it declares or uses.
    pub specials: &'a BTreeSet<RegisterType>,
    /// The input signature (`ISGN`/`ISG1`), when the container has one.
    pub inputs: Option<&'a Signature>,
    /// The output signature (`OSGN`/`OSG1`).
    pub outputs: Option<&'a Signature>,
    /// Vertices per input primitive (a geometry program's `dcl_inputprimitive`; 1 in
    /// other stages): the input registers repeat once per vertex.
    pub vertices: u32,
}

/// Builds the element tables and word counts of a vertex or pixel program into the
/// builder's shader (see the module doc), and returns where its registers live.
pub(super) fn layout(src: &IoSource<'_>, b: &mut Builder) -> Result<IoLayout, LowerError> {
    let mut io = IoLayout {
        ranges: src.ranges.to_vec(),
        ..IoLayout::default()
    };
    let (inputs, input_regs, input_words) = side(src, false, &mut io.special)?;
    let (outputs, output_regs, output_words) = side(src, true, &mut io.special)?;
    io.input_regs = input_regs;
    io.output_regs = output_regs;
    let stream_outputs = if src.stage == Stage::Geometry {
        stream_elements(src.outputs, output_words)
    } else {
        Vec::new()
    };
    let s = b.shader_mut();
    s.inputs = inputs;
    s.outputs = outputs;
    s.input_words = input_words;
    s.output_words = output_words;
    s.stream_outputs = stream_outputs;
    Ok(io)
}

/// A geometry program's output elements of every stream (`Shader::stream_outputs`),
/// from the output signature (`OSG5`, `OSG1`: each element names its stream). Every
/// stream writes the same output registers (`dcl_stream m#` then its `dcl_output`s), and
/// `emit_stream` captures them all, so an element at register `n` is words `4n …` of the
/// emitted vertex whatever its stream. Elements past the output words (a signature that
/// names a register no declaration sizes) are left out: nothing can write them.
fn stream_elements(sig: Option<&Signature>, words: u32) -> Vec<(u32, IoElement)> {
    let Some(sig) = sig else {
        return Vec::new();
    };
    sig.elements
        .iter()
        .filter(|e| e.register != NO_REGISTER && e.mask & 0xf != 0)
        .filter(|e| {
            let high = 7u32.saturating_sub((e.mask & 0xf).leading_zeros());
            u64::from(e.register)
                .saturating_mul(4)
                .saturating_add(u64::from(high))
                < u64::from(words)
        })
        .map(|e| {
            (
                e.stream,
                IoElement {
                    semantic: e.semantic_name.clone(),
                    semantic_index: e.semantic_index,
                    sv: sv_of_signature(e.system_value),
                    register: e.register,
                    rows: 1,
                    mask: e.mask & 0xf,
                    component: component_of(e.component_type),
                    interp: Interp::Undefined,
                    slot: e.register.saturating_mul(4),
                },
            )
        })
        .collect()
}

/// One side's elements, register count and word count.
fn side(
    src: &IoSource<'_>,
    output: bool,
    special: &mut HashMap<RegisterType, u32>,
) -> Result<(Vec<IoElement>, u32, u32), LowerError> {
    let pixel = src.stage == Stage::Pixel;
    let limit = if pixel && output {
        MAX_PIXEL_OUTPUTS
    } else {
        MAX_IO_REGISTERS
    };
    let what = if output { "output" } else { "input" };
    let letter = if output { 'o' } else { 'v' };
    let stage = src.stage;
    let sig = if output { src.outputs } else { src.inputs };
    let decls: Vec<&IoDecl> = src.decls.iter().filter(|d| d.output == output).collect();
    // Registers, checked against D3D's counts before anything is sized by them.
    let mut regs = 0u32;
    for d in &decls {
        if let Some(n) = d.number {
            if n >= limit {
                return Err(LowerError::Invalid {
                    message: format!("{letter}{n}: a {stage} program has {limit} {what} registers"),
                    location: decl_loc(src.p, d.at),
                });
            }
            regs = regs.max(n.saturating_add(1));
        }
    }
    for r in src.ranges.iter().filter(|r| r.output == output) {
        let end = r.first.checked_add(r.count).filter(|e| *e <= limit);
        match end {
            Some(e) if r.count > 0 => regs = regs.max(e),
            _ => {
                return Err(LowerError::Invalid {
                    message: format!(
                        "dcl_indexrange {letter}{} of {} registers: a {stage} program has {limit} {what} registers",
                        r.first, r.count
                    ),
                    location: "the program's declarations".into(),
                });
            }
        }
    }
    let sig_elems: Vec<_> = sig
        .map(|s| s.elements.iter().filter(|e| e.stream == 0).collect())
        .unwrap_or_default();
    for e in &sig_elems {
        if e.register == NO_REGISTER {
            continue;
        }
        if e.register >= limit {
            return Err(LowerError::Invalid {
                message: format!(
                    "signature element {}{} at register {}: a {stage} program has {limit} {what} registers",
                    e.semantic_name, e.semantic_index, e.register
                ),
                location: format!(
                    "the {} part",
                    sig.map_or("signature".into(), |s| s.tag.to_string())
                ),
            });
        }
        regs = regs.max(e.register.saturating_add(1));
    }

    // Which components of each register the signature's elements cover.
    let mut covered: HashMap<u32, u8> = HashMap::new();
    let mut elems: Vec<IoElement> = Vec::new();
    let decl_of = |n: u32, mask: u8| -> Option<&IoDecl> {
        let at_reg = || decls.iter().copied().filter(|d| d.number == Some(n));
        at_reg()
            .find(|d| d.mask & mask != 0)
            .or_else(|| at_reg().next())
    };
    for e in &sig_elems {
        let mask = e.mask & 0xf;
        if e.register == NO_REGISTER || mask == 0 {
            continue;
        }
        let d = decl_of(e.register, mask);
        let sv = element_sv(src, output, d, Some(e.system_value))?;
        elems.push(IoElement {
            semantic: e.semantic_name.clone(),
            semantic_index: e.semantic_index,
            sv,
            register: e.register,
            rows: 1,
            mask,
            component: component_of(e.component_type),
            interp: element_interp(src.stage, output, d),
            slot: e.register.saturating_mul(4),
        });
        let c = covered.entry(e.register).or_insert(0);
        *c |= mask;
    }
    // Declared components no signature element names.
    for d in &decls {
        let Some(n) = d.number else { continue };
        let c = covered.entry(n).or_insert(0);
        let rest = d.mask & 0xf & !*c;
        if rest == 0 {
            continue;
        }
        *c |= rest;
        let sv = element_sv(src, output, Some(d), None)?;
        let semantic_index = match sv {
            SysValue::None | SysValue::Target => n,
            _ => u32::try_from(elems.iter().filter(|x| x.sv == sv).count()).unwrap_or(0),
        };
        elems.push(IoElement {
            semantic: sv_semantic(sv).into(),
            semantic_index,
            sv,
            register: n,
            rows: 1,
            mask: rest,
            component: sv_component(sv),
            interp: element_interp(src.stage, output, Some(d)),
            slot: n.saturating_mul(4),
        });
    }
    elems.sort_by_key(|e| (e.register, e.mask.trailing_zeros()));

    // Registerless elements, after the registers (of every input vertex).
    let mut specials: Vec<RegisterType> = src
        .specials
        .iter()
        .copied()
        .filter(|r| special_side(*r) == Some(output))
        .collect();
    specials.sort_by_key(|r| special_rank(*r));
    let per_vertex = if output { 1 } else { src.vertices.max(1) };
    let base = regs.saturating_mul(4).saturating_mul(per_vertex);
    let mut words = base;
    for r in specials {
        let (name, sv, component) = special_element(r);
        let named = sig_elems.iter().find(|e| {
            e.register == NO_REGISTER
                && (e.semantic_name.eq_ignore_ascii_case(name)
                    || sv_of_signature(e.system_value) == sv)
        });
        special.insert(r, words);
        elems.push(IoElement {
            semantic: named.map_or_else(|| name.to_string(), |e| e.semantic_name.clone()),
            semantic_index: named.map_or(0, |e| e.semantic_index),
            sv,
            register: NO_REGISTER,
            rows: 1,
            mask: 1,
            component: named.map_or(component, |e| component_of(e.component_type)),
            interp: Interp::Undefined,
            slot: words,
        });
        words = words.saturating_add(4);
    }
    Ok((elems, regs, words))
}

/// The system value of a register-backed element: a pixel output is a render target; else
/// the declaration's, else the signature's.
fn element_sv(
    src: &IoSource<'_>,
    output: bool,
    d: Option<&IoDecl>,
    sig: Option<SystemValue>,
) -> Result<SysValue, LowerError> {
    if src.stage == Stage::Pixel && output {
        return Ok(SysValue::Target);
    }
    if let Some(d) = d
        && let Some(name) = d.sv
    {
        return sv_of_name(name).ok_or_else(|| LowerError::Invalid {
            message: format!(
                "system value {} on an {} of a {} program",
                name.fxc_name(),
                if output { "output" } else { "input" },
                src.stage
            ),
            location: decl_loc(src.p, d.at),
        });
    }
    Ok(sig.map_or(SysValue::None, sv_of_signature))
}

/// The interpolation of an element: a pixel input's declared mode (`dcl_input_ps`,
/// `dcl_input_ps_siv`); nothing for the rest (see the module doc).
fn element_interp(stage: Stage, output: bool, d: Option<&IoDecl>) -> Interp {
    if stage != Stage::Pixel || output {
        return Interp::Undefined;
    }
    d.and_then(|d| d.interp)
        .map_or(Interp::Undefined, interp_of)
}

impl Lowerer<'_> {
    /// The first word, run-time row and row count a `v#`/`o#` operand addresses:
    /// `v3` is word 12 with no row; `v[r0.x + 1]` is the first word of the index range
    /// holding register 1, with row `r0.x + 1 - first` of `count` rows (see the module
    /// doc).
    pub(super) fn io_row(
        &mut self,
        op: &Operand,
        output: bool,
    ) -> Result<(u32, Option<Reg>, u32), LowerError> {
        let letter = if output { 'o' } else { 'v' };
        let regs = if output {
            self.d.io.output_regs
        } else {
            self.d.io.input_regs
        };
        // A geometry program's inputs are `v[vertex][register]`: the vertex picks a copy
        // of the register file (`GeometryState`'s layout).
        let (pos, base) = if !output && self.d.stage == Stage::Geometry {
            if op.index_count != 2 {
                return Err(self.invalid(format!(
                    "a geometry input operand with {} indices (v[vertex][register] has 2)",
                    op.index_count
                )));
            }
            let vertex = match op.index(0) {
                Some(Index::Immediate(v)) => *v,
                Some(Index::Relative { .. }) => {
                    return Err(
                        self.unsupported("a geometry input vertex chosen at run time".into())
                    );
                }
                None => return Err(self.invalid("v[…][…] without its vertex".into())),
            };
            if vertex >= self.d.gs.vertices {
                return Err(self.invalid(format!(
                    "v[{vertex}][…]: the input primitive has {} vertices",
                    self.d.gs.vertices
                )));
            }
            (1, vertex.saturating_mul(regs).saturating_mul(4))
        } else {
            if op.index_count != 1 {
                return Err(self.invalid(format!(
                    "a {letter}# operand with {} indices",
                    op.index_count
                )));
            }
            (0, 0)
        };
        let idx = *op
            .index(pos)
            .ok_or_else(|| self.invalid(format!("a {letter}# operand without its register")))?;
        match idx {
            Index::Immediate(n) => {
                if n >= regs {
                    return Err(self.invalid(format!("{letter}{n} is not declared")));
                }
                Ok((n.saturating_mul(4).saturating_add(base), None, 1))
            }
            Index::Relative { offset, register } => {
                let (first, count) = self
                    .d
                    .io
                    .ranges
                    .iter()
                    .find(|r| {
                        r.output == output
                            && offset >= r.first
                            && offset.wrapping_sub(r.first) < r.count
                    })
                    .map_or((0, regs), |r| (r.first, r.count));
                if count == 0 {
                    return Err(self.invalid(format!(
                        "{letter}[…] indexes a stage without {letter}# registers"
                    )));
                }
                let r = self.relative(&register)?;
                let delta = offset.wrapping_sub(first);
                let row = if delta == 0 {
                    r
                } else {
                    let t = self.temp();
                    let k = self.k(delta);
                    self.emit(Inst::IAdd { dst: t, a: r, b: k });
                    t
                };
                Ok((
                    first.saturating_mul(4).saturating_add(base),
                    Some(row),
                    count,
                ))
            }
        }
    }

    /// The word of a registerless input or output (`vCoverage`, `oDepth`, …).
    pub(super) fn special_word(&self, r: RegisterType) -> Result<u32, LowerError> {
        match self.d.io.special.get(&r) {
            Some(w) => Ok(*w),
            None => Err(self.unsupported(format!(
                "register {} in a {} program",
                r.name(),
                self.d.stage
            ))),
        }
    }

    /// Reads components `need` of a `v#` operand into fresh registers, one `input` (or
    /// `input_indexed`) per component.
    pub(super) fn read_input(&mut self, op: &Operand, need: u8) -> Result<[Reg; 4], LowerError> {
        let (slot, row, rows) = self.io_row(op, false)?;
        let dst = self.load_regs(need);
        for c in comps(need) {
            let Some(&d) = dst.get(c) else { continue };
            let slot = slot.wrapping_add(u32::try_from(c).unwrap_or(0));
            self.emit(match row {
                None => Inst::Input { dst: d, slot },
                Some(index) => Inst::InputIndexed {
                    dst: d,
                    slot,
                    index,
                    rows,
                },
            });
        }
        Ok(dst)
    }
}

/// Where a hull or domain program's words went besides what [`IoLayout`] keeps: the
/// values of its [`HullState`](crate::ir::HullState) or
/// [`DomainState`](crate::ir::DomainState) layout fields.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct PatchWords {
    /// Input words per input control point.
    pub point_words: u32,
    /// Output words per output control point (hull).
    pub output_point_words: u32,
    /// The hull's phase word.
    pub phase_word: u32,
    /// The domain's `SV_DomainLocation` word.
    pub location_word: u32,
}

/// The element tables and words of a hull or domain program: the main register files as
/// [`layout`] lays them out (control points repeated `points_in` times), then the
/// patch-constant file (`patch`: the `PCSG` part) — after a hull's output control point,
/// after a domain's inputs — and the words only these stages have (see
/// [`HullState`](crate::ir::HullState) and [`DomainState`](crate::ir::DomainState) for the
/// order).
pub(super) fn patch_layout(
    src: &IoSource<'_>,
    patch: Option<&Signature>,
    points_out: u32,
    b: &mut Builder,
) -> Result<(IoLayout, PatchWords), LowerError> {
    let hull = src.stage == Stage::Hull;
    let main_decls: Vec<IoDecl> = src.decls.iter().filter(|d| !d.patch).cloned().collect();
    let patch_decls: Vec<IoDecl> = src.decls.iter().filter(|d| d.patch).cloned().collect();
    let main_ranges: Vec<IndexRange> = src.ranges.iter().filter(|r| !r.patch).copied().collect();
    let patch_ranges: Vec<IndexRange> = src.ranges.iter().filter(|r| r.patch).copied().collect();
    let none = BTreeSet::new();
    let main = IoSource {
        decls: &main_decls,
        ranges: &main_ranges,
        ..*src
    };
    let pc = IoSource {
        p: src.p,
        stage: src.stage,
        decls: &patch_decls,
        ranges: &patch_ranges,
        specials: &none,
        inputs: if hull { None } else { patch },
        outputs: if hull { patch } else { None },
        vertices: 1,
    };
    let mut io = IoLayout {
        ranges: src.ranges.to_vec(),
        points_in: src.vertices,
        points_out,
        ..IoLayout::default()
    };
    let (mut inputs, input_regs, in_words) = side(&main, false, &mut io.special)?;
    let (mut outputs, output_regs, out_words) = side(&main, true, &mut io.special)?;
    let (mut pc_elems, pc_regs, pc_words) = side(&pc, hull, &mut io.special)?;
    io.input_regs = input_regs;
    io.output_regs = output_regs;
    io.patch_regs = pc_regs;
    let mut words = PatchWords {
        point_words: input_regs.saturating_mul(4),
        ..PatchWords::default()
    };
    let (input_words, output_words) = if hull {
        words.output_point_words = out_words;
        io.patch_base = out_words;
        io.ocp_base = in_words;
        io.vpc_base = in_words.saturating_add(points_out.saturating_mul(out_words));
        words.phase_word = io.vpc_base.saturating_add(pc_words);
        for e in &mut pc_elems {
            e.slot = e.slot.saturating_add(out_words);
        }
        outputs.append(&mut pc_elems);
        (
            words.phase_word.saturating_add(1),
            out_words.saturating_add(pc_words),
        )
    } else {
        io.patch_base = in_words;
        for e in &mut pc_elems {
            e.slot = e.slot.saturating_add(in_words);
        }
        inputs.append(&mut pc_elems);
        words.location_word = in_words.saturating_add(pc_words);
        inputs.push(IoElement {
            semantic: "SV_DomainLocation".into(),
            semantic_index: 0,
            sv: SysValue::DomainLocation,
            register: NO_REGISTER,
            rows: 1,
            mask: 0x7,
            component: ComponentType::Float,
            interp: Interp::Undefined,
            slot: words.location_word,
        });
        (words.location_word.saturating_add(4), out_words)
    };
    let s = b.shader_mut();
    s.inputs = inputs;
    s.outputs = outputs;
    s.input_words = input_words;
    s.output_words = output_words;
    Ok((io, words))
}
