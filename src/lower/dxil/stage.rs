//! Vertex and pixel programs: the entry point's signatures as the shader's input and
//! output elements ([`crate::ir::io`]), and the `dx.op` operations that read and write
//! them or ask the pipeline for what only it knows.
//!
//! Owns: the layout of signature elements in a lane's input and output words, the
//! system values DXIL reads through operations of their own (`SampleIndex`, `Coverage`,
//! `InnerCoverage`, `ViewID`, `PrimitiveID`, `StartVertexLocation`,
//! `StartInstanceLocation`), and the lowering of `LoadInput`, `StoreOutput`,
//! `EvalSnapped`, `EvalSampleIndex`, `EvalCentroid`, `AttributeAtVertex`,
//! `RenderTargetGetSamplePosition`, `RenderTargetGetSampleCount` and `Discard`.
//! Does not own: how the pipeline fills the input words or reads the output words
//! (`pipeline`), or the signature records themselves ([`crate::dxil::meta`]).
//!
//! # Layout (DXIL.rst "Signature element record", "Accessing signature value in
//! operations")
//!
//! A packed element (start row `r` ≥ 0, start column `c`) sits at `slot = 4·r`, its mask
//! the element's columns shifted by `c`, so `LoadInput(id, row, col)` reads word
//! `slot + 4·row + c + col` — the register and component the packing gave it, which is
//! what stages are linked by. An element the signature does not pack (start row −1:
//! `SV_Depth*`, `SV_Coverage` and `SV_StencilRef` outputs, the `SV_SampleIndex` and
//! `SV_Barycentrics` pixel inputs) has [`NO_REGISTER`] and rows of its own after the
//! highest packed row, in signature order, its mask starting at x. System values that
//! are not in the signature at all (`NotInSig`: `SV_Coverage`, `SV_InnerCoverage` and
//! `SV_ViewID` pixel inputs, `SV_ViewID` in the vertex, hull, domain, geometry and mesh
//! stages, the SM 6.8 start locations in vertex programs) get such a row when the
//! program first reads them. An amplification program cannot read `SV_ViewID`
//! (DXIL.rst: `NA` in `ASIn`) and is refused naming the operation.
//!
//! # Values in words
//!
//! A word holds the element's value as 32 bits: floats as f32 bits, integers as 32-bit
//! integers (`SV_IsFrontFace` 0xffffffff or 0, as DXBC gives it). Elements of 16-bit
//! types (min-precision `min16float` and native `float16_t`/`int16_t` signatures) keep
//! that word format: a half is stored as the f32 of the same value, a 16-bit integer
//! sign- or zero-extended by the element's type. `LoadInput` and the `Eval*` operations
//! narrow on the way in (f32 → half rounds to nearest even, the rounding of WARP's
//! 16-bit results; integers keep their low 16 bits), `StoreOutput` widens exactly. So
//! the pipeline interpolates and converts every element as 32-bit values whatever
//! precision the program computes in.

use std::collections::HashMap;

use super::func::{FnLower, R, Val};
use super::layout::Leaf;
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::{Instruction, ValueId};
use crate::dxil::meta::{SignatureElement, Signatures};
use crate::ir::io::NO_REGISTER;
use crate::ir::{ComponentType, EvalAt, Inst, Interp, IoElement, Reg, Shader, Stage, SysValue};
use crate::lower::LowerError;

/// Packed rows a signature may use: D3D12's 32 input and 32 output registers of a
/// vertex or pixel stage (`D3D12_VS_INPUT_REGISTER_COUNT`, `D3D12_PS_INPUT_REGISTER_COUNT`,
/// `D3D12_VS_OUTPUT_REGISTER_COUNT`).
pub const MAX_PACKED_ROWS: u32 = 32;

/// Rows a signature may use in all, the unpacked elements' rows included (a bound on
/// the words a lane carries, checked before anything is allocated).
pub const MAX_ROWS: u32 = 64;

/// The stage a function is lowered for and where its signature elements are.
#[derive(Debug, Clone)]
pub struct Io {
    /// The stage.
    pub stage: Stage,
    /// Input element id → index in the shader's `inputs`.
    pub(super) inputs: HashMap<u32, usize>,
    /// Output element id → index in the shader's `outputs`.
    pub(super) outputs: HashMap<u32, usize>,
    /// Mesh programs: primitive output element id → index in `primitive_outputs`.
    prims: HashMap<u32, usize>,
    /// Hull and domain programs: patch-constant element id → index in the shader's
    /// `outputs` (hull) or `inputs` (domain).
    pub(super) patch: HashMap<u32, usize>,
    /// Hull programs: whether the function being lowered is the patch-constant function.
    pub(super) patch_phase: bool,
    /// Geometry programs: the input primitive's vertices (1 in other stages).
    pub vertices: u32,
    /// Geometry programs: input rows of one input vertex (its words / 4).
    pub vertex_rows: u32,
    /// Geometry programs: the output streams the state declares active (bit n: stream n).
    pub stream_mask: u32,
    /// Lowered for the debugger ([`crate::lower::LoadOptions::debugging`]).
    pub debugging: bool,
}

impl Io {
    /// A compute function: no signatures.
    pub fn compute() -> Io {
        Io::no_signatures(Stage::Compute)
    }

    /// A stage without signatures (compute, amplification).
    pub fn no_signatures(stage: Stage) -> Io {
        Io {
            stage,
            inputs: HashMap::new(),
            outputs: HashMap::new(),
            prims: HashMap::new(),
            patch: HashMap::new(),
            patch_phase: false,
            vertices: 1,
            vertex_rows: 0,
            stream_mask: 0,
            debugging: false,
        }
    }

    /// Lays out a mesh entry's vertex outputs (its output signature) into `s.outputs`
    /// and its per-primitive outputs (the signature's third list, where DXIL keeps them)
    /// into `s.primitive_outputs`, each with words of its own; `s.mesh` must be set. A
    /// mesh program has no input signature (its inputs are thread ids and the payload).
    pub fn lay_out_mesh(sigs: Option<&Signatures>, s: &mut Shader) -> R<Io> {
        let empty = Signatures::default();
        let sigs = sigs.unwrap_or(&empty);
        if let Some(e) = sigs.inputs.first() {
            return Err(LowerError::Invalid {
                message: format!("a mesh program with an input signature ({})", e.name),
                location: "entry point signatures".into(),
            });
        }
        let (outputs, ids_out, words_out) = lay_out_list(&sigs.outputs, "vertex output", false)?;
        let (prims, ids_prim, words_prim) =
            lay_out_list(&sigs.patch_constants, "primitive output", false)?;
        s.outputs = outputs;
        s.output_words = words_out;
        s.primitive_outputs = prims;
        if let Some(m) = s.mesh.as_mut() {
            m.primitive_words = words_prim;
        }
        Ok(Io {
            stage: Stage::Mesh,
            inputs: HashMap::new(),
            outputs: ids_out,
            prims: ids_prim,
            patch: HashMap::new(),
            patch_phase: false,
            vertices: 1,
            vertex_rows: 0,
            stream_mask: 0,
            debugging: false,
        })
    }

    /// Lays out the signatures of a vertex or pixel entry into `s.inputs`/`s.outputs`
    /// and their word counts (see the module doc).
    pub fn lay_out(stage: Stage, sigs: Option<&Signatures>, s: &mut Shader) -> R<Io> {
        let empty = Signatures::default();
        let sigs = sigs.unwrap_or(&empty);
        let pixel = stage == Stage::Pixel;
        let (inputs, ids_in, words_in) = lay_out_list(&sigs.inputs, "input", pixel)?;
        let (outputs, ids_out, words_out) = lay_out_list(&sigs.outputs, "output", false)?;
        if !sigs.patch_constants.is_empty() {
            return Err(LowerError::Invalid {
                message: format!("a {stage} shader with a patch-constant signature"),
                location: "entry point signatures".into(),
            });
        }
        s.inputs = inputs;
        s.outputs = outputs;
        s.input_words = words_in;
        s.output_words = words_out;
        Ok(Io {
            stage,
            inputs: ids_in,
            outputs: ids_out,
            prims: HashMap::new(),
            patch: HashMap::new(),
            patch_phase: false,
            vertices: 1,
            vertex_rows: 0,
            stream_mask: 0,
            debugging: false,
        })
    }

    /// Lays out a geometry entry's signatures (`s.geometry` must be set; its
    /// `vertex_words` is filled in here; `stream_mask` is the state's active streams).
    ///
    /// Inputs: the packed elements describe one input vertex (rows `0 … vertex_rows`),
    /// and the primitive's vertices follow each other, vertex `v`'s copy at
    /// `v · vertex_words` (the IR's [`GeometryState`](crate::ir::GeometryState) layout,
    /// the one the DXBC lowering gives `v[vertex][register]`); the unpacked inputs
    /// (`SV_PrimitiveID`, DXIL.rst "GSIn": read through `PrimitiveID`, listed for
    /// information) come after the last vertex.
    ///
    /// Outputs: DXIL packs each stream's elements on its own (DXIL.rst "Signature
    /// element record": the stream tag; stream 1's rows start again at 0). The elements
    /// of streams 1 … 3 get words of their own after stream 0's, so a store to one never
    /// overwrites a stream-0 value. `Shader::stream_outputs` lists every stream's
    /// elements with their rows as registers — what the pixel program links by when that
    /// stream is rasterized (`gs::stream_elements`) — while `outputs` give the later
    /// streams' elements no register, so that linking stream 0 by register cannot find
    /// them.
    pub fn lay_out_geometry(sigs: Option<&Signatures>, s: &mut Shader, stream_mask: u32) -> R<Io> {
        let empty = Signatures::default();
        let sigs = sigs.unwrap_or(&empty);
        let Some(mut g) = s.geometry else {
            return Err(LowerError::Invalid {
                message: "a geometry program without its state".into(),
                location: "entry point signatures".into(),
            });
        };
        if !sigs.patch_constants.is_empty() {
            return Err(LowerError::Invalid {
                message: "a geometry shader with a patch-constant signature".into(),
                location: "entry point signatures".into(),
            });
        }
        let (mut inputs, ids_in, words_in) = lay_out_list(&sigs.inputs, "input", false)?;
        // One vertex's words: up to the end of the last packed row.
        let vertex_words = inputs
            .iter()
            .filter(|e| e.register != NO_REGISTER)
            .map(|e| e.slot.saturating_add(4 * e.rows))
            .max()
            .unwrap_or(0);
        let vertices = g.input.vertices();
        let extra = vertex_words
            .checked_mul(vertices - 1)
            .ok_or_else(|| LowerError::Invalid {
                message: "the input vertices' words overflow".into(),
                location: "input signature".into(),
            })?;
        for e in inputs.iter_mut().filter(|e| e.register == NO_REGISTER) {
            e.slot = e.slot.saturating_add(extra);
        }
        // Outputs, stream by stream (stream 0 first, whatever the signature's order).
        let stream_of = |e: &SignatureElement| e.stream.unwrap_or(0);
        let mut outputs = Vec::new();
        let mut ids_out = HashMap::new();
        let mut words_out = 0u32;
        for stream in 0..4u32 {
            let elems: Vec<SignatureElement> = sigs
                .outputs
                .iter()
                .filter(|e| stream_of(e) == stream)
                .cloned()
                .collect();
            if elems.is_empty() {
                continue;
            }
            if stream_mask & (1 << stream) == 0 {
                return Err(LowerError::Invalid {
                    message: format!(
                        "output element {} on stream {stream}, which the geometry state's stream mask {stream_mask:#x} leaves inactive",
                        elems.first().map_or("", |e| e.name.as_str())
                    ),
                    location: "output signature".into(),
                });
            }
            let (mut list, ids, words) = lay_out_list(&elems, "output", false)?;
            for e in &mut list {
                e.slot = e.slot.saturating_add(words_out);
                // The stream's list keeps its rows (what a pixel program links by when
                // the stream is rasterized); the stage's outputs keep only stream 0's,
                // whose rows the later streams' would shadow.
                s.stream_outputs.push((stream, e.clone()));
                if stream != 0 {
                    e.register = NO_REGISTER;
                }
            }
            for (id, i) in ids {
                ids_out.insert(id, i + outputs.len());
            }
            outputs.extend(list);
            words_out = words_out.saturating_add(words);
        }
        if let Some(e) = sigs.outputs.iter().find(|e| stream_of(e) > 3) {
            return Err(LowerError::Invalid {
                message: format!(
                    "output element {} on stream {}: a geometry program has streams 0 to 3",
                    e.name,
                    stream_of(e)
                ),
                location: "output signature".into(),
            });
        }
        g.vertex_words = vertex_words;
        s.geometry = Some(g);
        s.inputs = inputs;
        s.input_words = words_in.saturating_add(extra);
        s.outputs = outputs;
        s.output_words = words_out;
        Ok(Io {
            stage: Stage::Geometry,
            inputs: ids_in,
            outputs: ids_out,
            prims: HashMap::new(),
            patch: HashMap::new(),
            patch_phase: false,
            vertices,
            vertex_rows: vertex_words / 4,
            stream_mask,
            debugging: false,
        })
    }
}

/// The element table of one signature: elements, id → index, words.
fn lay_out_list(
    elems: &[SignatureElement],
    what: &str,
    pixel_input: bool,
) -> R<(Vec<IoElement>, HashMap<u32, usize>, u32)> {
    lay_out_with(elems, what, pixel_input, sys_value)
}

/// [`lay_out_list`] for a signature that is not a pixel program's input, with the
/// system values `sv_of` allows (hull and domain signatures: [`sys_value_tess`]).
pub(super) fn lay_out_elements(
    elems: &[SignatureElement],
    what: &str,
    sv_of: fn(u32) -> Option<SysValue>,
) -> R<(Vec<IoElement>, HashMap<u32, usize>, u32)> {
    lay_out_with(elems, what, false, sv_of)
}

fn lay_out_with(
    elems: &[SignatureElement],
    what: &str,
    pixel_input: bool,
    sv_of: fn(u32) -> Option<SysValue>,
) -> R<(Vec<IoElement>, HashMap<u32, usize>, u32)> {
    let bad = |i: usize, e: &SignatureElement, message: String| LowerError::Invalid {
        message,
        location: format!("{what} signature element {i} ({})", e.name),
    };
    let mut packed_rows = 0u32;
    for (i, e) in elems.iter().enumerate() {
        if !(1..=4).contains(&e.cols) || !(1..=MAX_PACKED_ROWS).contains(&e.rows) {
            return Err(bad(i, e, format!("{} rows of {} columns", e.rows, e.cols)));
        }
        match (e.start_row, e.start_col) {
            (-1, -1) => {}
            (r, c) if r >= 0 && c >= 0 => {
                let end = (r as u32).saturating_add(e.rows);
                if end > MAX_PACKED_ROWS || c as u32 + e.cols > 4 {
                    return Err(bad(
                        i,
                        e,
                        format!(
                            "packed at row {r}, column {c} with {} rows of {} columns, past the {MAX_PACKED_ROWS} registers of four components",
                            e.rows, e.cols
                        ),
                    ));
                }
                packed_rows = packed_rows.max(end);
            }
            (r, c) => return Err(bad(i, e, format!("start row {r} with start column {c}"))),
        }
    }
    let mut next_row = packed_rows;
    let mut out = Vec::with_capacity(elems.len());
    let mut ids = HashMap::with_capacity(elems.len());
    for (i, e) in elems.iter().enumerate() {
        let sv = sv_of(e.semantic_kind).ok_or_else(|| LowerError::Unsupported {
            what: format!(
                "semantic kind {} ({}) in a vertex or pixel signature",
                e.semantic_kind, e.name
            ),
            location: format!("{what} signature element {i}"),
        })?;
        let component = component(e.component_type).ok_or_else(|| LowerError::Unsupported {
            what: format!(
                "signature element {} of component type {}",
                e.name, e.component_type
            ),
            location: format!("{what} signature element {i}"),
        })?;
        let interp = if pixel_input {
            interp(e.interpolation)
                .ok_or_else(|| bad(i, e, format!("interpolation mode {}", e.interpolation)))?
        } else {
            Interp::Undefined
        };
        let cols = (1u8 << e.cols) - 1;
        let (register, slot, mask) = if e.start_row >= 0 {
            let r = e.start_row as u32;
            (r, 4 * r, cols << e.start_col)
        } else {
            let r = next_row;
            next_row = next_row.saturating_add(e.rows);
            if next_row > MAX_ROWS {
                return Err(bad(
                    i,
                    e,
                    format!("the signature needs more than {MAX_ROWS} rows"),
                ));
            }
            (NO_REGISTER, 4 * r, cols)
        };
        if ids.insert(e.id, out.len()).is_some() {
            return Err(bad(i, e, format!("a second element with id {}", e.id)));
        }
        out.push(IoElement {
            semantic: e.name.clone(),
            semantic_index: e.semantic_indices.first().copied().unwrap_or(0),
            sv,
            register,
            rows: e.rows,
            mask,
            component,
            interp,
            slot,
        });
    }
    Ok((out, ids, 4 * next_row))
}

/// The system value of a DXIL `SemanticKind` (DXIL.rst's semantic interpretation table,
/// in its row order), for the kinds a vertex or pixel signature may hold.
pub fn sys_value(kind: u32) -> Option<SysValue> {
    Some(match kind {
        0 => SysValue::None,
        1 => SysValue::VertexId,
        2 => SysValue::InstanceId,
        3 => SysValue::Position,
        4 => SysValue::RenderTargetArrayIndex,
        5 => SysValue::ViewportArrayIndex,
        6 => SysValue::ClipDistance,
        7 => SysValue::CullDistance,
        10 => SysValue::PrimitiveId,
        12 => SysValue::SampleIndex,
        13 => SysValue::IsFrontFace,
        14 => SysValue::Coverage,
        15 => SysValue::InnerCoverage,
        16 => SysValue::Target,
        17 => SysValue::Depth,
        18 => SysValue::DepthLessEqual,
        19 => SysValue::DepthGreaterEqual,
        20 => SysValue::StencilRef,
        27 => SysValue::ViewId,
        28 => SysValue::Barycentrics,
        29 => SysValue::ShadingRate,
        30 => SysValue::CullPrimitive,
        31 => SysValue::StartVertexLocation,
        32 => SysValue::StartInstanceLocation,
        _ => return None,
    })
}

/// [`sys_value`] with the kinds only hull and domain signatures hold (DXIL.rst's
/// semantic kinds 8 `OutputControlPointID`, 9 `DomainLocation`, 25 `TessFactor`,
/// 26 `InsideTessFactor`).
pub fn sys_value_tess(kind: u32) -> Option<SysValue> {
    Some(match kind {
        8 => SysValue::OutputControlPointId,
        9 => SysValue::DomainLocation,
        25 => SysValue::TessFactor,
        26 => SysValue::InsideTessFactor,
        k => return sys_value(k),
    })
}

/// How an element's words are read, from its DXIL `ComponentType` (1 i1, 2 i16, 3 u16,
/// 4 i32, 5 u32, 8 f16, 9 f32, 11–14 the 16- and 32-bit SNORM/UNORM floats). 64-bit
/// types are not signature types (D3D12 interstage values are 32-bit).
pub fn component(ct: u32) -> Option<ComponentType> {
    Some(match ct {
        1 | 3 | 5 => ComponentType::UInt,
        2 | 4 => ComponentType::SInt,
        8 | 9 => ComponentType::Float,
        11 | 13 => ComponentType::SNorm,
        12 | 14 => ComponentType::UNorm,
        _ => return None,
    })
}

/// The interpolation of a DXIL `InterpolationMode` (0 undefined … 7 linear noperspective
/// sample; the IR's [`Interp`] follows the same order).
pub fn interp(mode: u32) -> Option<Interp> {
    Some(match mode {
        0 => Interp::Undefined,
        1 => Interp::Constant,
        2 => Interp::Linear,
        3 => Interp::LinearCentroid,
        4 => Interp::LinearNoPerspective,
        5 => Interp::LinearNoPerspectiveCentroid,
        6 => Interp::LinearSample,
        7 => Interp::LinearNoPerspectiveSample,
        _ => return None,
    })
}

/// Where an operation's element is: the word of its row 0 and column, its rows, and
/// how its words read.
struct Place {
    /// `slot + start column + column`.
    word: u32,
    rows: u32,
    component: ComponentType,
}

impl<'m> FnLower<'m> {
    /// Lowers a stage input/output or pixel-pipeline `dx.op` (see the module doc).
    pub fn stage_op(
        &mut self,
        c: &DxOpCall<'m>,
        inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let op = c.op();
        match op {
            DxOp::LoadInput => {
                self.need_stage(
                    c,
                    &[
                        Stage::Vertex,
                        Stage::Pixel,
                        Stage::Geometry,
                        Stage::Hull,
                        Stage::Domain,
                    ],
                )?;
                let p = self.place(c, false)?;
                let l = self.leaf(inst.ty)?;
                let word = if matches!(self.io.stage, Stage::Geometry | Stage::Hull | Stage::Domain)
                {
                    self.read_vertex_word(c, &p)?
                } else {
                    self.read_word(c, &p)?
                };
                let v = self.narrow_in(c, l, word)?;
                self.define(res, Val::Regs(vec![v]));
            }
            DxOp::StoreOutput => {
                self.need_stage(
                    c,
                    &[
                        Stage::Vertex,
                        Stage::Pixel,
                        Stage::Geometry,
                        Stage::Hull,
                        Stage::Domain,
                    ],
                )?;
                if self.io.patch_phase {
                    return Err(self.invalid(format!(
                        "dx.op {} in a hull program's patch-constant function (it writes StorePatchConstant)",
                        c.name()
                    )));
                }
                let p = self.place(c, true)?;
                let vid = self.a_(c, 3)?;
                let l = self.leaf(self.ty(vid)?)?;
                let v = self.reg(vid)?;
                let src = self.widen_out(c, l, v, p.component)?;
                let rv = self.a_(c, 1)?;
                match self.row_of(c, rv, p.rows)? {
                    Some(row) => self.emit(Inst::Output {
                        slot: p.word + 4 * row,
                        src,
                    }),
                    None => {
                        let index = self.reg(rv)?;
                        self.emit(Inst::OutputIndexed {
                            slot: p.word,
                            index,
                            rows: p.rows,
                            src,
                        });
                    }
                }
            }
            DxOp::EvalSnapped
            | DxOp::EvalSampleIndex
            | DxOp::EvalCentroid
            | DxOp::AttributeAtVertex => {
                self.need_stage(c, &[Stage::Pixel])?;
                let p = self.place(c, false)?;
                let rv = self.a_(c, 1)?;
                let (slot, index, rows) = match self.row_of(c, rv, p.rows)? {
                    Some(row) => (p.word + 4 * row, Reg::NONE, 1),
                    None => (p.word, self.reg(rv)?, p.rows),
                };
                let (at, arg) = match op {
                    // EvalSnapped(…, offsetX, offsetY): sixteenths of a pixel.
                    DxOp::EvalSnapped => {
                        (EvalAt::Snapped, [self.reg_arg(c, 3)?, self.reg_arg(c, 4)?])
                    }
                    // EvalSampleIndex(…, sampleIndex).
                    DxOp::EvalSampleIndex => (EvalAt::Sample, [self.reg_arg(c, 3)?, Reg::NONE]),
                    DxOp::EvalCentroid => (EvalAt::Centroid, [Reg::NONE; 2]),
                    // AttributeAtVertex(…, VertexID): an i8 immediate, 0 to 2.
                    _ => (EvalAt::Vertex, [self.reg_arg(c, 3)?, Reg::NONE]),
                };
                let dst = self.b.temp();
                self.emit(Inst::Eval {
                    at,
                    dst,
                    slot,
                    index,
                    rows,
                    arg,
                });
                let l = self.leaf(inst.ty)?;
                let v = self.narrow_in(c, l, dst)?;
                self.define(res, Val::Regs(vec![v]));
            }
            DxOp::SampleIndex
            | DxOp::Coverage
            | DxOp::InnerCoverage
            | DxOp::PrimitiveID
            | DxOp::ViewID
            | DxOp::StartVertexLocation
            | DxOp::StartInstanceLocation => {
                let (sv, name, stages): (_, _, &[Stage]) = match op {
                    DxOp::SampleIndex => (SysValue::SampleIndex, "SV_SampleIndex", &[Stage::Pixel]),
                    DxOp::Coverage => (SysValue::Coverage, "SV_Coverage", &[Stage::Pixel]),
                    DxOp::InnerCoverage => {
                        (SysValue::InnerCoverage, "SV_InnerCoverage", &[Stage::Pixel])
                    }
                    DxOp::PrimitiveID => (
                        SysValue::PrimitiveId,
                        "SV_PrimitiveID",
                        &[Stage::Pixel, Stage::Geometry, Stage::Hull, Stage::Domain],
                    ),
                    // DXIL.rst's semantic interpretation table: `NotInSig` in VSIn,
                    // PCIn, HSIn, DSIn, GSIn, PSIn and MSIn; `NA` in ASIn and compute.
                    DxOp::ViewID => (
                        SysValue::ViewId,
                        "SV_ViewID",
                        &[
                            Stage::Vertex,
                            Stage::Hull,
                            Stage::Domain,
                            Stage::Geometry,
                            Stage::Pixel,
                            Stage::Mesh,
                        ],
                    ),
                    DxOp::StartVertexLocation => (
                        SysValue::StartVertexLocation,
                        "SV_StartVertexLocation",
                        &[Stage::Vertex],
                    ),
                    _ => (
                        SysValue::StartInstanceLocation,
                        "SV_StartInstanceLocation",
                        &[Stage::Vertex],
                    ),
                };
                self.need_stage(c, stages)?;
                let slot = self.sys_input(sv, name)?;
                let d = self.op2(|dst| Inst::Input { dst, slot });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::RenderTargetGetSamplePosition => {
                self.need_stage(c, &[Stage::Pixel])?;
                let index = self.reg_arg(c, 0)?;
                let x = self.b.temp();
                let y = self.b.temp();
                self.emit(Inst::RasterSamplePos { dst: [x, y], index });
                self.define(res, Val::Regs(vec![x, y]));
            }
            DxOp::RenderTargetGetSampleCount => {
                self.need_stage(c, &[Stage::Pixel])?;
                let d = self.op2(|dst| Inst::RasterSampleCount { dst });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::Discard => {
                // D3D's discard demotes: the pixel's outputs and later memory writes are
                // dropped, but the lane runs on as a helper lane so that the quad's
                // derivatives stay defined, and IsHelperLane reads true from then on
                // (HLSL Shader Model 6.6 "IsHelperLane": helper lanes are pixels executing
                // for gradients "or discarded pixels"; SM 6.7 "WaveOpsIncludeHelperLanes":
                // "a lane that has been demoted with discard"). The stage reports demoted
                // lanes as killed.
                self.need_stage(c, &[Stage::Pixel])?;
                let cond = self.reg_arg(c, 0)?;
                self.emit(Inst::Demote { cond });
            }
            _ => {
                return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode())));
            }
        }
        Ok(())
    }

    /// Argument `i` of a call, or an error naming the operation.
    fn a_(&self, c: &DxOpCall<'m>, i: usize) -> R<ValueId> {
        c.arg(i)
            .ok_or_else(|| self.invalid(format!("{} has no operand {i}", c.name())))
    }

    /// The register of argument `i` (an `undef` reads 0).
    fn reg_arg(&mut self, c: &DxOpCall<'m>, i: usize) -> R<Reg> {
        let v = self.a_(c, i)?;
        self.reg(v)
    }

    /// Refuses an operation outside the stages it belongs to.
    fn need_stage(&self, c: &DxOpCall<'m>, stages: &[Stage]) -> R<()> {
        if stages.contains(&self.io.stage) {
            return Ok(());
        }
        Err(self.invalid(format!("dx.op {} in a {} shader", c.name(), self.io.stage)))
    }

    /// The element operand 0 of a signature access names, and the word of its column
    /// (operand 2, a constant).
    fn place(&self, c: &DxOpCall<'m>, output: bool) -> R<Place> {
        let s = self.b.shader();
        if output {
            self.element_place(c, "output", &self.io.outputs, &s.outputs)
        } else {
            self.element_place(c, "input", &self.io.inputs, &s.inputs)
        }
    }

    /// Where a mesh output operation's element is (operand 0: a vertex output element
    /// when `vertex`, else a primitive output element; operand 2 its column): the word of
    /// row 0 and the column, its rows and its component type.
    pub(super) fn mesh_place(
        &self,
        c: &DxOpCall<'m>,
        vertex: bool,
    ) -> R<(u32, u32, ComponentType)> {
        let s = self.b.shader();
        let p = if vertex {
            self.element_place(c, "vertex output", &self.io.outputs, &s.outputs)?
        } else {
            self.element_place(c, "primitive output", &self.io.prims, &s.primitive_outputs)?
        };
        Ok((p.word, p.rows, p.component))
    }

    /// Where a hull or domain operation's element is (operand 0; operand 2 its
    /// column): a patch-constant element when `patch`, else an output (`output`) or
    /// input element; its word of row 0 and the column, rows and component type.
    pub(super) fn element_at(
        &self,
        c: &DxOpCall<'m>,
        patch: bool,
        output: bool,
    ) -> R<(u32, u32, ComponentType)> {
        let s = self.b.shader();
        let list = if output { &s.outputs } else { &s.inputs };
        let p = match (patch, output) {
            (true, _) => self.element_place(c, "patch constant", &self.io.patch, list)?,
            (false, true) => self.element_place(c, "output", &self.io.outputs, list)?,
            (false, false) => self.element_place(c, "input", &self.io.inputs, list)?,
        };
        Ok((p.word, p.rows, p.component))
    }

    /// The element of `list` that operand 0 names through `map` (signature element id →
    /// index), and the word of the column operand 2 names; `what` names the list in
    /// errors.
    fn element_place(
        &self,
        c: &DxOpCall<'m>,
        what: &str,
        map: &HashMap<u32, usize>,
        list: &[IoElement],
    ) -> R<Place> {
        let id = self.const_arg(c, 0)?;
        let e = u32::try_from(id)
            .ok()
            .and_then(|id| map.get(&id))
            .and_then(|&i| list.get(i))
            .ok_or_else(|| {
                self.invalid(format!(
                    "{} of {what} element {id}, which the signature does not declare",
                    c.name()
                ))
            })?;
        let col = self.const_arg(c, 2)?;
        let cols = e.mask.count_ones();
        let col = u32::try_from(col)
            .ok()
            .filter(|&k| k < cols)
            .ok_or_else(|| {
                self.invalid(format!(
                    "{} of column {col} of {what} element {id} ({}), which has {cols}",
                    c.name(),
                    e.semantic_name()
                ))
            })?;
        Ok(Place {
            word: e.slot + e.mask.trailing_zeros() + col,
            rows: e.rows,
            component: e.component,
        })
    }

    /// Argument `i` of a call, or an error naming the operation.
    pub(super) fn arg_of(&self, c: &DxOpCall<'m>, i: usize) -> R<ValueId> {
        self.a_(c, i)
    }

    /// [`Self::narrow_in`] for the hull and domain operations.
    pub(super) fn narrow_word(&mut self, c: &DxOpCall<'m>, l: Leaf, word: Reg) -> R<Reg> {
        self.narrow_in(c, l, word)
    }

    /// [`Self::row_of`] for the mesh operations.
    pub(super) fn const_row(&self, c: &DxOpCall<'m>, v: ValueId, rows: u32) -> R<Option<u32>> {
        self.row_of(c, v, rows)
    }

    /// [`Self::widen_out`] for the mesh operations.
    pub(super) fn widen_word(
        &mut self,
        c: &DxOpCall<'m>,
        l: Leaf,
        v: Reg,
        ty: ComponentType,
    ) -> R<Reg> {
        self.widen_out(c, l, v, ty)
    }

    /// A constant integer argument.
    fn const_arg(&self, c: &DxOpCall<'m>, i: usize) -> R<i64> {
        let v = self.a_(c, i)?;
        self.const_int(v).ok_or_else(|| {
            self.unsupported(format!(
                "{} with operand {i} that is not a constant",
                c.name()
            ))
        })
    }

    /// A row operand: `Some(row)` when it is a constant (checked against the element's
    /// rows), `None` when it is chosen at run time.
    fn row_of(&self, c: &DxOpCall<'m>, v: ValueId, rows: u32) -> R<Option<u32>> {
        if self.is_undef(v) {
            return Ok(Some(0));
        }
        match self.const_int(v) {
            None => Ok(None),
            Some(r) => u32::try_from(r)
                .ok()
                .filter(|&r| r < rows)
                .map(Some)
                .ok_or_else(|| {
                    self.invalid(format!(
                        "{} of row {r} of an element of {rows} rows",
                        c.name()
                    ))
                }),
        }
    }

    /// Reads the word a `LoadInput` names: `input` for a constant row, `input_indexed`
    /// otherwise.
    fn read_word(&mut self, c: &DxOpCall<'m>, p: &Place) -> R<Reg> {
        let rv = self.a_(c, 1)?;
        Ok(match self.row_of(c, rv, p.rows)? {
            Some(row) => {
                let slot = p.word + 4 * row;
                self.op2(|dst| Inst::Input { dst, slot })
            }
            None => {
                let index = self.reg(rv)?;
                let (slot, rows) = (p.word, p.rows);
                self.op2(|dst| Inst::InputIndexed {
                    dst,
                    slot,
                    index,
                    rows,
                })
            }
        })
    }

    /// Reads the word a geometry program's `LoadInput` names: operand 3 is the input
    /// vertex (DXIL.rst, `LoadInput`'s `vertexID`: "the vertex index for GS"), whose copy
    /// of the element starts `vertex · vertex_words` words on (`Io::lay_out_geometry`). A
    /// vertex or row chosen at run time reads through `input_indexed` over every row of
    /// every vertex from the element on, so an index past the primitive reads 0.
    fn read_vertex_word(&mut self, c: &DxOpCall<'m>, p: &Place) -> R<Reg> {
        let (vertices, vrows) = (self.io.vertices, self.io.vertex_rows);
        self.read_point_word(c, 0, p.word, p.rows, vertices, vrows)
    }

    /// Reads word `word` (row 0 of an element of `rows` rows, relative to `base`) of
    /// one of `vertices` copies `vrows` rows apart from `base` on: the copy is operand
    /// 3, the row operand 1 (`LoadInput`, `LoadOutputControlPoint`). Constants read one
    /// word; a copy or row chosen at run time reads through `input_indexed`, 0 past the
    /// last copy.
    pub(super) fn read_point_word(
        &mut self,
        c: &DxOpCall<'m>,
        base: u32,
        word: u32,
        rows: u32,
        vertices: u32,
        vrows: u32,
    ) -> R<Reg> {
        let p = Place {
            word,
            rows,
            component: ComponentType::Float,
        };
        let rv = self.a_(c, 1)?;
        let vv = self.a_(c, 3)?;
        if p.word >= vrows.saturating_mul(4) {
            return Err(self.invalid(format!(
                "{} of an input element outside the input vertex",
                c.name()
            )));
        }
        let row = self.row_of(c, rv, p.rows)?;
        let vertex = if self.is_undef(vv) {
            Some(0)
        } else {
            match self.const_int(vv) {
                None => None,
                Some(v) => Some(u32::try_from(v).ok().filter(|&v| v < vertices).ok_or_else(
                    || {
                        self.invalid(format!(
                            "{} of input vertex {v} of a primitive of {vertices}",
                            c.name()
                        ))
                    },
                )?),
            }
        };
        if let (Some(row), Some(vertex)) = (row, vertex) {
            let slot = base + p.word + 4 * (vertex * vrows + row);
            return Ok(self.op2(|dst| Inst::Input { dst, slot }));
        }
        // Row `vertex · vertex_rows + row` from the element's first word.
        let vr = match vertex {
            Some(v) => self.k(v * vrows),
            None => {
                let v = self.reg(vv)?;
                let k = self.k(vrows);
                self.op2(|dst| Inst::IMul { dst, a: v, b: k })
            }
        };
        let rr = match row {
            Some(r) => self.k(r),
            None => self.reg(rv)?,
        };
        let index = self.op2(|dst| Inst::IAdd { dst, a: vr, b: rr });
        let rows = (vertices * vrows).saturating_sub(p.word / 4);
        let slot = base + p.word;
        Ok(self.op2(|dst| Inst::InputIndexed {
            dst,
            slot,
            index,
            rows,
        }))
    }

    /// A word as the value of a load's overload (see "Values in words").
    fn narrow_in(&mut self, c: &DxOpCall<'m>, l: Leaf, word: Reg) -> R<Reg> {
        Ok(match l {
            Leaf::F32 | Leaf::I32 => word,
            Leaf::F16 => self.f2h(word),
            Leaf::I16 => self.and_k(word, 0xffff),
            Leaf::Bool => self.ne_zero(word),
            _ => return Err(self.invalid(format!("{} of {l:?} values", c.name()))),
        })
    }

    /// A stored value as its word (see "Values in words").
    fn widen_out(&mut self, c: &DxOpCall<'m>, l: Leaf, v: Reg, ty: ComponentType) -> R<Reg> {
        Ok(match l {
            Leaf::F32 | Leaf::I32 | Leaf::Bool => v,
            Leaf::F16 => self.h2f(v),
            Leaf::I16 if ty == ComponentType::SInt => self.sext(v, 16),
            Leaf::I16 => v,
            _ => return Err(self.invalid(format!("{} of {l:?} values", c.name()))),
        })
    }

    /// The word of a system-value input the program reads through an operation of its
    /// own: its signature element's (`SV_SampleIndex` is listed, unpacked), or a row made
    /// for it after the others (values `NotInSig`: `SV_Coverage`, `SV_InnerCoverage`,
    /// `SV_ViewID`, the start locations).
    pub(super) fn sys_input(&mut self, sv: SysValue, name: &str) -> R<u32> {
        let s = self.b.shader_mut();
        if let Some(e) = s.inputs.iter().find(|e| e.sv == sv) {
            return Ok(e.slot + e.mask.trailing_zeros());
        }
        let slot = s.input_words;
        s.input_words = slot.saturating_add(4);
        s.inputs.push(IoElement {
            semantic: name.into(),
            semantic_index: 0,
            sv,
            register: NO_REGISTER,
            rows: 1,
            mask: 1,
            component: ComponentType::UInt,
            interp: Interp::Undefined,
            slot,
        });
        Ok(slot)
    }
}
