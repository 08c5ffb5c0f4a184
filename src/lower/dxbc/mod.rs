//! DXBC (Shader Model 4.0–5.1) compute, vertex, hull, domain, geometry and pixel
//! programs → IR.
//!
//! Owns: turning a decoded [`Program`] (`cs_4_0` … `cs_5_1`, `vs_4_0` … `vs_5_1`,
//! `ps_4_0` … `ps_5_1`, and the `4_0_level_9_x` variants, which are `vs_4_0`/`ps_4_0`
//! programs beside a Direct3D 9 one) into an [`ir::Shader`](crate::ir::Shader): the header
//! from the declarations, a vertex or pixel program's input and output elements (its
//! declarations joined with the container's signatures: see `io`), every executable
//! instruction of its stage, structured control flow, inlined subroutines and the source
//! map. Does not own: decoding tokens (see [`crate::dxbc`]), what an IR instruction
//! computes (see [`crate::ir`] and `exec`), or how the pipeline feeds a stage. A hull
//! program's phases become one shader whose lanes choose a phase (`hull`'s module doc
//! says how); a domain program reads its control points, patch constants and
//! `vDomain` from input words laid out by `io::patch_layout`.
//!
//! # How a program maps onto the IR
//!
//! - **Registers.** Each temporary `r#` is four consecutive IR registers (x, y, z, w), so a
//!   double in `xy` or `zw` is already an IR register pair. Indexable temporaries `x#[n]`
//!   become per-lane arrays of 16 bytes per element ([`LocalArray`](crate::ir::LocalArray)),
//!   the immediate constant buffer a [`ConstArray`](crate::ir::ConstArray), constant
//!   buffers `cb#[row]` loads at byte `row * 16 + component * 4`, group shared memory `g#`
//!   one region of `groupshared_bytes` per declaration, and the compute inputs
//!   (`vThreadID`, `vThreadGroupID`, `vThreadIDInGroup`, `vThreadIDInGroupFlattened`)
//!   registers set once in the entry block. Immediates `l(…)`/`d(…)` are constant
//!   registers.
//! - **Stage inputs and outputs.** A vertex or pixel program's `v#` reads become `input`
//!   (one per component read, where it is read), `v[r#.x + n]` reads `input_indexed`
//!   within their `dcl_indexrange`; `o#`, `oDepth`, `oDepthGE`, `oDepthLE`, `oMask` and
//!   `oStencilRef` destinations are computed like any other (modifiers, `_sat`) into fresh
//!   registers and written with one `output` (`output_indexed`) per component; `vCoverage`
//!   and `vInnerCoverage` are input words of their own. The element tables and word
//!   layout are `io`'s (register `n` at word `4n`, registerless elements after the last
//!   register, elements split per register even under an index range).
//! - **Scalarisation.** A vector instruction becomes one IR instruction (or a short
//!   sequence) per written component, each reading the components its swizzles select.
//!   DXBC reads every source before writing any destination; where a component written
//!   early is read by a later component's computation (`add r0.xy, r0.yx, r1.xy`), the
//!   early result goes to a fresh register and is copied into place after the last read
//!   (see `Lowerer::flush`).
//! - **Control flow.** `if`/`else`, `loop`, `switch` (with fall-through), `break(c)`,
//!   `continue(c)` and `ret(c)` become blocks and terminators; the IR builder orders
//!   them so that waves reconverge at each construct's end. Subroutines (`call`, `callc`,
//!   `label`) are inlined (D3D forbids recursion; a recursive call is refused).
//! - **Resources.** Every `dcl_resource*`, `dcl_uav_*`, `dcl_constantbuffer` and
//!   `dcl_sampler` is a [`ResourceRange`](crate::ir::ResourceRange) (Shader Model 5.1
//!   ranges with their space and bounds); handles for immediate indices are made once in
//!   the entry block, handles for relative indices where they are used.
//! - **Source map.** Every IR instruction carries the
//!   [`SourceLoc::Dxbc`](crate::ir::SourceLoc) of the instruction it came from (the
//!   entry block's handles and inputs carry their declaration's).
//!
//! # Rules chosen here (each also at the code that applies it)
//!
//! - 32-bit float denormals flush (the shader's mode is `ftz`; D3D11.3 §3.1).
//! - Source modifiers follow the operand's type in the opcode table: on float and untyped
//!   operands (`mov`, `movc`, stored values) `-x` flips and `|x|` clears the sign bit; on
//!   integer operands `-x` is two's-complement negation and `|x|` is refused.
//! - `mad` is the profile's multiply-add (fused on current WARP) unless its component is
//!   `precise`; `dp2`/`dp3`/`dp4` multiply then add left to right, every step rounded.
//! - `_sat` clamps float results to [0, 1] with NaN → 0 (doubles: `dmax` then `dmin`).
//! - `resinfo` converts per its return type; `_rcpFloat` reciprocates only width, height
//!   and depth; a multisampled texture reports one mip.
//! - Minimum-precision hints are ignored: everything is computed at 32 bits.
//! - Group shared memory accesses are bounded per `g#` declaration.
//! - Pixel programs: `discard_z`/`discard_nz` end the lanes whose value is (not) zero;
//!   `deriv_rt{x,y}_coarse`/`_fine` take their quad's derivatives, and the unqualified
//!   `deriv_rtx`/`deriv_rty` are coarse (one pair per 2×2 stamp: their reference page);
//!   `sample`, `sample_b`, `sample_c`, `lod` and the `_cl_s` forms take their level of
//!   detail from the quad; `eval_centroid`, `eval_sample_index` and `eval_snapped` ask the
//!   pipeline for the input at another place; `sampleinfo`/`samplepos` of the
//!   `rasterizer` describe the render target's sample pattern; `dcl_globalFlags
//!   forceEarlyDepthStencil` sets the shader's early depth-stencil. UAV stores and atomics
//!   are lowered as in compute (`exec` keeps helper lanes from writing).
//! - Other stages cannot use what needs pixel quads or another stage: in compute and
//!   vertex programs `deriv_*`, `sample`, `sample_b`, `sample_c`, `lod`, `discard`,
//!   `eval_*` and the `rasterizer` operand are refused by name; `emit`/`cut` everywhere,
//!   as is class linkage (`fcall`, interfaces). Vertex programs have nothing
//!   stage-specific beyond their inputs and outputs.
//! - `debug_break` and `abort` (any stage): see [`Lowerer::debugging_op`].
//!
//! Anything else — an opcode, register type or construct this lowering does not handle —
//! is refused with [`LowerError::Unsupported`] naming it and its location, e.g.
//! "unsupported opcode emit (geometry shaders only) at dxbc instruction 12 (token 0x4c)".

#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod alu;
mod decls;
mod flow;
mod hull;
mod io;
mod memory;
mod operands;
mod pixel;
#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
mod tests;

use std::collections::{HashMap, HashSet};

use super::{LoadOptions, LowerError};
use crate::container::rdef::Rdef;
use crate::container::signature::Signature;
use crate::container::{Container, FourCc, ProgramKind};
use crate::dxbc::{Executable, InstructionKind, Opcode, Program, RegisterType};
use crate::ir::{BlockId, Builder, Inst, Reg, Role, Shader, SourceLoc, Stage, Terminator};

use decls::Decls;
use flow::Frame;

/// The most IR instructions a program may lower to, and the most DXBC instructions it may
/// lower (inlined subroutines included): bounds the time and memory a program whose
/// subroutines call each other many times can make the lowering use.
pub const MAX_IR_INSTRUCTIONS: usize = 1 << 21;

/// The deepest subroutine nesting accepted (D3D11.3's limit on nested `call`s, 32).
pub const MAX_CALL_DEPTH: usize = 32;

/// What a container says about its program besides the tokens: resource names (`RDEF`)
/// and the input and output signatures (`ISGN`/`ISG1`, `OSGN`/`OSG1`), which name a
/// vertex or pixel program's inputs and outputs (see `io`). Each is optional: without a
/// signature the elements are named from the declarations.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reflection<'a> {
    /// The resource definitions.
    pub rdef: Option<&'a Rdef>,
    /// The input signature.
    pub inputs: Option<&'a Signature>,
    /// The output signature.
    pub outputs: Option<&'a Signature>,
    /// The patch-constant signature (`PCSG`: a hull program's patch-constant outputs, a
    /// domain program's patch-constant inputs).
    pub patch: Option<&'a Signature>,
}

/// Lowers the `SHDR`/`SHEX` program of a container; resource names come from its `RDEF`
/// part when it has one that reads, input and output names from its signature parts.
/// A signature part that does not decode is refused (it is what D3D links stages by).
pub fn lower_container(
    container: &Container<'_>,
    opts: &LoadOptions,
) -> Result<Shader, LowerError> {
    let program =
        Program::from_container(container).map_err(|e| LowerError::Decode(e.to_string()))?;
    let rdef = container
        .part(FourCc::RDEF)
        .and_then(|part| Rdef::parse(part).ok());
    let kind = Some(program.version.kind);
    let signature = |tags: &[FourCc]| -> Result<Option<Signature>, LowerError> {
        match tags.iter().find_map(|t| container.part(*t)) {
            Some(part) => Ok(Some(Signature::parse(part, kind)?)),
            None => Ok(None),
        }
    };
    let (inputs, outputs) = if matches!(
        program.version.kind,
        ProgramKind::Vertex
            | ProgramKind::Pixel
            | ProgramKind::Geometry
            | ProgramKind::Hull
            | ProgramKind::Domain
    ) {
        (
            signature(&[FourCc::ISG1, FourCc::ISGN])?,
            // A geometry program of several streams has `OSG5` (its elements carry their
            // stream; the rasterized stream 0's are the outputs).
            signature(&[FourCc::OSG1, FourCc::OSG5, FourCc::OSGN])?,
        )
    } else {
        (None, None)
    };
    let patch = if matches!(
        program.version.kind,
        ProgramKind::Hull | ProgramKind::Domain
    ) {
        signature(&[FourCc::PSG1, FourCc::PCSG])?
    } else {
        None
    };
    let refl = Reflection {
        rdef: rdef.as_ref(),
        inputs: inputs.as_ref(),
        outputs: outputs.as_ref(),
        patch: patch.as_ref(),
    };
    lower_reflected(&program, &refl, opts)
}

/// Lowers a decoded program. `rdef` supplies resource names (optional); a vertex or
/// pixel program's inputs and outputs are named from its declarations (see
/// [`lower_reflected`] to name them from signatures).
///
/// DXBC containers hold one program and do not record its entry point's name; the
/// shader is named after `opts.entry`, or `main`.
pub fn lower_program(
    program: &Program,
    rdef: Option<&Rdef>,
    opts: &LoadOptions,
) -> Result<Shader, LowerError> {
    let refl = Reflection {
        rdef,
        ..Reflection::default()
    };
    lower_reflected(program, &refl, opts)
}

/// Lowers a decoded program with what its container says about it.
pub fn lower_reflected(
    program: &Program,
    refl: &Reflection<'_>,
    opts: &LoadOptions,
) -> Result<Shader, LowerError> {
    let kind = program.version.kind;
    let stage = match kind {
        ProgramKind::Compute => Stage::Compute,
        ProgramKind::Vertex => Stage::Vertex,
        ProgramKind::Pixel => Stage::Pixel,
        ProgramKind::Geometry => Stage::Geometry,
        ProgramKind::Hull => Stage::Hull,
        ProgramKind::Domain => Stage::Domain,
        _ => {
            return Err(LowerError::Unsupported {
                what: format!(
                    "{} shader stage (only compute, vertex, hull, domain, geometry and pixel programs are lowered)",
                    kind.name()
                ),
                location: "the program's version token".into(),
            });
        }
    };
    let mut l = Lowerer::new(program, refl, stage)?;
    l.debugging = opts.debugging;
    if let Some(entry) = &opts.entry {
        l.b.shader_mut().entry.clone_from(entry);
    }
    l.prologue()?;
    if stage == Stage::Hull {
        l.lower_hull()?;
    } else {
        let main_end = l.labels_start;
        l.lower_range(0, main_end)?;
        l.end_of_main()?;
    }
    Ok(l.b.finish()?)
}

/// Which construct a `ret` leaves: the program, or an inlined subroutine (continue at
/// the block after its call).
#[derive(Debug, Clone, Copy)]
enum RetTarget {
    Program,
    Block(BlockId),
}

/// The state of one lowering.
pub(crate) struct Lowerer<'p> {
    p: &'p Program,
    b: Builder,
    d: Decls,
    /// IR instructions of the DXBC instruction being lowered (see [`Lowerer::flush`]).
    buf: Vec<Inst>,
    /// Registers that hold DXBC-visible state (the components of `r#`); only writes to
    /// these can clobber a value a later component of the same instruction reads.
    arch: HashSet<u32>,
    /// First IR register of each `r#`.
    temps: HashMap<u32, Reg>,
    /// The location of the instruction being lowered.
    loc: SourceLoc,
    loc_text: String,
    /// Index in `p.instructions` of the first `label` (the end of the main program).
    labels_start: usize,
    /// `label l#` → the instruction range of its body.
    labels: HashMap<u32, (usize, usize)>,
    /// Labels being inlined, innermost last.
    call_stack: Vec<u32>,
    /// Open control-flow constructs of the function being lowered, innermost last.
    frames: Vec<Frame>,
    ret_target: RetTarget,
    /// `if` instructions (by index) that have an `else`.
    has_else: HashSet<usize>,
    /// IR and DXBC instructions lowered so far (bounded by [`MAX_IR_INSTRUCTIONS`]).
    emitted: usize,
    /// IR instructions emitted so far (a `case` right after another shares its block
    /// when none were emitted between them).
    ir_emitted: usize,
    /// Whether an `msad` was lowered (its IR form names a register pair; see
    /// [`lower_program`]).
    /// The scratch pool (see [`Lowerer::scratch`]).
    scratch_chunks: Vec<Reg>,
    scratch_chunk: usize,
    scratch_used: u32,
    /// A hull program: the phase being lowered (`hull`).
    hull_phase: Option<crate::dxbc::HullPhase>,
    /// The constant holding the fork or join instance being lowered.
    phase_instance: Option<Reg>,
    /// Lowered for a debugger ([`LoadOptions::debugging`]).
    debugging: bool,
}

impl<'p> Lowerer<'p> {
    fn new(p: &'p Program, refl: &Reflection<'_>, stage: Stage) -> Result<Self, LowerError> {
        let mut b = Builder::new(stage);
        let d = Decls::read(p, refl, &mut b)?;
        let mut l = Lowerer {
            p,
            b,
            d,
            buf: Vec::new(),
            arch: HashSet::new(),
            temps: HashMap::new(),
            loc: SourceLoc::None,
            loc_text: String::new(),
            labels_start: p.instructions.len(),
            labels: HashMap::new(),
            call_stack: Vec::new(),
            frames: Vec::new(),
            ret_target: RetTarget::Program,
            has_else: HashSet::new(),
            emitted: 0,
            ir_emitted: 0,
            scratch_chunks: Vec::new(),
            scratch_chunk: 0,
            scratch_used: 0,
            hull_phase: None,
            phase_instance: None,
            debugging: false,
        };
        l.scan_structure()?;
        Ok(l)
    }

    /// Finds the subroutine bodies and which `if`s have an `else`.
    fn scan_structure(&mut self) -> Result<(), LowerError> {
        let mut ifs: Vec<Option<usize>> = Vec::new();
        let mut current_label: Option<(u32, usize)> = None;
        for (i, inst) in self.p.instructions.iter().enumerate() {
            let InstructionKind::Executable(e) = &inst.kind else {
                continue;
            };
            match e.opcode {
                Opcode::If => ifs.push(Some(i)),
                Opcode::Loop | Opcode::Switch => ifs.push(None),
                Opcode::Else => {
                    if let Some(Some(at)) = ifs.last() {
                        self.has_else.insert(*at);
                    }
                }
                Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch => {
                    ifs.pop();
                }
                Opcode::Label => {
                    self.set_loc_of(i);
                    let id = self.label_id(e)?;
                    if let Some((prev, start)) = current_label.take() {
                        self.labels.insert(prev, (start, i));
                    }
                    if self.labels.contains_key(&id) {
                        return Err(self.invalid(format!("label l{id} is defined twice")));
                    }
                    self.labels_start = self.labels_start.min(i);
                    current_label = Some((id, i.saturating_add(1)));
                }
                _ => {}
            }
        }
        if let Some((id, start)) = current_label {
            self.labels.insert(id, (start, self.p.instructions.len()));
        }
        self.loc = SourceLoc::None;
        Ok(())
    }

    /// The label number a `label`, `call` or `callc` names.
    fn label_id(&self, e: &Executable) -> Result<u32, LowerError> {
        let op = e
            .operands(self.p)
            .iter()
            .find(|o| o.register == RegisterType::Label)
            .ok_or_else(|| self.invalid("a label operand is missing".into()))?;
        op.register_number()
            .ok_or_else(|| self.invalid("a label is indexed relatively".into()))
    }

    /// Makes instruction `i` the one being lowered (its location goes on what is emitted).
    fn set_loc_of(&mut self, i: usize) {
        let token = self.p.instructions.get(i).map_or(0, |inst| inst.offset);
        self.loc = SourceLoc::Dxbc {
            index: u32::try_from(i).unwrap_or(u32::MAX),
            token,
        };
        self.loc_text = self.loc.to_string();
        self.b.set_loc(self.loc);
    }

    /// An [`LowerError::Unsupported`] at the current instruction.
    fn unsupported(&self, what: String) -> LowerError {
        LowerError::Unsupported {
            what,
            location: self.location(),
        }
    }

    /// An [`LowerError::Invalid`] at the current instruction.
    fn invalid(&self, message: String) -> LowerError {
        LowerError::Invalid {
            message,
            location: self.location(),
        }
    }

    fn location(&self) -> String {
        if self.loc_text.is_empty() {
            "the program's declarations".into()
        } else {
            self.loc_text.clone()
        }
    }

    /// Lowers instructions `start..end` of the program (the main program or a subroutine
    /// body).
    fn lower_range(&mut self, start: usize, end: usize) -> Result<(), LowerError> {
        let p = self.p;
        for i in start..end {
            let Some(inst) = p.instructions.get(i) else {
                break;
            };
            let InstructionKind::Executable(e) = &inst.kind else {
                continue;
            };
            self.set_loc_of(i);
            self.restart_scratch();
            // Each lowered instruction counts toward the budget, so that subroutines that
            // call each other many times without emitting anything still end.
            self.emitted = self.emitted.saturating_add(1);
            if self.emitted > MAX_IR_INSTRUCTIONS {
                return Err(self.unsupported(format!(
                    "program size: more than {MAX_IR_INSTRUCTIONS} instructions once subroutines are inlined"
                )));
            }
            self.instruction(i, e)?;
            self.flush()?;
        }
        Ok(())
    }

    /// The main program has ended: every construct must be closed, and a program that
    /// runs off its end returns.
    fn end_of_main(&mut self) -> Result<(), LowerError> {
        if let Some(f) = self.frames.last() {
            return Err(self.invalid(format!("{} is never closed", f.name())));
        }
        self.flush()?;
        if self.open() {
            self.b.terminate(Terminator::Return);
        }
        Ok(())
    }

    /// Lowers one executable instruction.
    fn instruction(&mut self, index: usize, e: &Executable) -> Result<(), LowerError> {
        use Opcode as O;
        match e.opcode {
            O::If
            | O::Else
            | O::EndIf
            | O::Loop
            | O::EndLoop
            | O::Break
            | O::Breakc
            | O::Continue
            | O::Continuec
            | O::Switch
            | O::Case
            | O::Default
            | O::EndSwitch
            | O::Ret
            | O::Retc
            | O::Call
            | O::Callc
            | O::Label => self.flow(index, e),
            O::Nop => Ok(()),
            O::DebugBreak | O::Abort => self.debugging_op(e.opcode),
            O::Sync => self.sync(e),
            O::Emit
            | O::Cut
            | O::EmitThenCut
            | O::EmitStream
            | O::CutStream
            | O::EmitThenCutStream
                if self.d.stage == Stage::Geometry =>
            {
                self.emission(e)
            }
            op if pixel::handles(op) && self.d.stage == Stage::Pixel => self.pixel(e),
            op => {
                let quads = self.d.stage == Stage::Pixel || !memory::implicit_lod(op);
                if alu::handles(op) {
                    self.alu(e)
                } else if memory::handles(op) && quads {
                    self.memory(e)
                } else {
                    Err(self.unsupported(refusal(op, self.d.stage)))
                }
            }
        }
    }

    /// `emit`, `cut`, `emit_then_cut` and their `_stream m#` forms: one `emit` and/or `cut`
    /// of the stream (0 without an operand).
    fn emission(&mut self, e: &Executable) -> Result<(), LowerError> {
        use Opcode as O;
        let stream = match e.opcode {
            O::EmitStream | O::CutStream | O::EmitThenCutStream => {
                let op = e
                    .operands(self.p)
                    .first()
                    .filter(|o| o.register == RegisterType::Stream)
                    .ok_or_else(|| {
                        self.invalid(format!("{} without its m# stream", e.opcode.mnemonic()))
                    })?;
                let m = op
                    .register_number()
                    .ok_or_else(|| self.invalid("a stream operand without its number".into()))?;
                if m >= crate::ir::validate::MAX_STREAMS {
                    return Err(self.invalid(format!(
                        "stream m{m}: a geometry program has {} streams",
                        crate::ir::validate::MAX_STREAMS
                    )));
                }
                m
            }
            _ => 0,
        };
        if matches!(
            e.opcode,
            O::Emit | O::EmitThenCut | O::EmitStream | O::EmitThenCutStream
        ) {
            self.emit(Inst::Emit { stream });
        }
        if matches!(
            e.opcode,
            O::Cut | O::EmitThenCut | O::CutStream | O::EmitThenCutStream
        ) {
            self.emit(Inst::Cut { stream });
        }
        Ok(())
    }

    /// `sync[_uglobal|_ugroup][_g][_t]`: a barrier. `_t` synchronises the group's
    /// threads; `_g` orders group shared memory; `_ugroup`/`_uglobal` order UAV memory
    /// (the IR's device-memory barrier covers both scopes).
    fn sync(&mut self, e: &Executable) -> Result<(), LowerError> {
        let f = e.sync.unwrap_or_default();
        self.emit(Inst::Barrier {
            group_sync: f.threads_in_group,
            group_memory: f.group_shared_memory,
            device_memory: f.uav_memory_group || f.uav_memory_global,
        });
        Ok(())
    }

    /// `debug_break` and `abort`. D3D11 names them (`D3D11_SB_OPCODE_DEBUG_BREAK`,
    /// `D3D11_SB_OPCODE_ABORT`) without defining them; C++ AMP's `direct3d_abort`,
    /// which compiles to `abort`, is documented to end the kernel with an error on the
    /// reference device. Here: under a
    /// debugger each is a step of its own (a `mov` to an unused register) the debugger
    /// stops at; elsewhere `debug_break` is nothing. `abort` then ends the invocation
    /// wherever it is (in a subroutine too), as a `ret` of the main program would: what
    /// the lane wrote before it stays, nothing after it runs.
    fn debugging_op(&mut self, op: Opcode) -> Result<(), LowerError> {
        if self.debugging {
            let zero = self.b.konst(0);
            let t = self.temp();
            self.emit(Inst::Mov { dst: t, src: zero });
        }
        if op == Opcode::Abort {
            self.flush()?;
            if self.open() {
                self.b.terminate(Terminator::Return);
            }
        }
        Ok(())
    }

    // ---- emission ---------------------------------------------------------------------

    /// Queues an IR instruction of the DXBC instruction being lowered.
    fn emit(&mut self, inst: Inst) {
        self.buf.push(inst);
    }

    /// Whether the current block can take instructions or a terminator (false after a
    /// terminator, until the next block starts).
    fn open(&self) -> bool {
        self.b
            .current()
            .is_some_and(|blk| !self.b.is_terminated(blk))
    }

    /// A fresh register for a value used within the instruction being lowered.
    fn temp(&mut self) -> Reg {
        self.scratch(1)
    }

    /// A fresh register pair (a double within the instruction being lowered).
    fn temp64(&mut self) -> Reg {
        self.scratch(2)
    }

    /// `n` (1 to 4) consecutive scratch registers.
    ///
    /// Values the lowering makes for one DXBC instruction (loaded components, modified
    /// sources, addresses, results on their way to a destination) are dead once it ends
    /// (its terminator included), so every instruction draws them from the same pool,
    /// restarted by [`Lowerer::restart_scratch`]: the shader needs as many registers as
    /// its largest instruction rather than the sum of all. The pool is a list of 4-register
    /// chunks, so that pairs and quads are consecutive.
    fn scratch(&mut self, n: u32) -> Reg {
        let n = n.clamp(1, 4);
        if self.scratch_used.saturating_add(n) > 4 {
            self.scratch_chunk = self.scratch_chunk.saturating_add(1);
            self.scratch_used = 0;
        }
        let base = match self.scratch_chunks.get(self.scratch_chunk) {
            Some(r) => *r,
            None => {
                let r = self.b.temps(4);
                self.scratch_chunks.push(r);
                r
            }
        };
        let r = Reg(base.0.wrapping_add(self.scratch_used));
        self.scratch_used = self.scratch_used.saturating_add(n);
        r
    }

    /// Starts a new instruction's use of the scratch pool.
    fn restart_scratch(&mut self) {
        self.scratch_chunk = 0;
        self.scratch_used = 0;
    }

    /// Emits the queued instructions of the current DXBC instruction.
    ///
    /// DXBC reads every source operand before it writes any destination component
    /// (the D3D11.3 instruction reference, §22, defines each instruction on whole source
    /// vectors), while
    /// the queued IR computes component after component. A queued instruction that
    /// writes a component of `r#` which a later queued instruction reads therefore
    /// writes a fresh register instead, copied into place after the last queued
    /// instruction; a write that a later queued instruction writes again is dead and
    /// also goes to a fresh register.
    fn flush(&mut self) -> Result<(), LowerError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut buf = std::mem::take(&mut self.buf);
        let mut read_later: HashSet<u32> = HashSet::new();
        let mut written_later: HashSet<u32> = HashSet::new();
        let mut copies: Vec<(Reg, Reg)> = Vec::new();
        for inst in buf.iter_mut().rev() {
            let mut writes: Vec<(Reg, bool)> = Vec::new();
            inst.visit_regs(&mut |role, r| {
                if role.writes() {
                    writes.push((r, role == Role::Write64));
                }
            });
            for (r, wide) in writes {
                let halves: &[Reg] = if wide { &[r, r.hi()] } else { &[r] };
                if !halves.iter().any(|h| self.arch.contains(&h.0)) {
                    continue;
                }
                let dead = halves.iter().all(|h| written_later.contains(&h.0));
                let read = halves.iter().any(|h| read_later.contains(&h.0));
                let clobbers = halves.iter().any(|h| written_later.contains(&h.0));
                if !(read || clobbers) {
                    continue;
                }
                let fresh = if wide { self.temp64() } else { self.temp() };
                let mut done = false;
                inst.visit_regs_mut(&mut |role, x| {
                    if !done && role.writes() && *x == r {
                        *x = fresh;
                        done = true;
                    }
                });
                if !dead {
                    copies.push((r, fresh));
                    if wide {
                        copies.push((r.hi(), fresh.hi()));
                    }
                }
            }
            // Registers this instruction writes are written later for the ones before it.
            inst.visit_regs(&mut |role, r| match role {
                Role::Write => {
                    written_later.insert(r.0);
                }
                Role::Write64 => {
                    written_later.insert(r.0);
                    written_later.insert(r.hi().0);
                }
                Role::Read => {
                    read_later.insert(r.0);
                }
                Role::Read64 => {
                    read_later.insert(r.0);
                    read_later.insert(r.hi().0);
                }
                Role::None => {}
            });
        }
        // A pair write renamed above may have left one half that no later instruction
        // writes: copy only halves that are architectural.
        copies.retain(|(to, _)| self.arch.contains(&to.0));
        self.emitted = self
            .emitted
            .saturating_add(buf.len())
            .saturating_add(copies.len());
        if self.emitted > MAX_IR_INSTRUCTIONS {
            return Err(self.unsupported(format!(
                "program size: more than {MAX_IR_INSTRUCTIONS} IR instructions once subroutines are inlined"
            )));
        }
        self.ir_emitted = self
            .ir_emitted
            .saturating_add(buf.len())
            .saturating_add(copies.len());
        for inst in buf {
            self.b.emit(inst);
        }
        for (to, from) in copies.into_iter().rev() {
            self.b.emit(Inst::Mov { dst: to, src: from });
        }
        Ok(())
    }
}

/// What to say about an opcode this lowering does not run in a program of `stage`.
fn refusal(op: Opcode, stage: Stage) -> String {
    use Opcode as O;
    let m = op.mnemonic();
    let why = match op {
        O::DerivRtx
        | O::DerivRty
        | O::DerivRtxCoarse
        | O::DerivRtxFine
        | O::DerivRtyCoarse
        | O::DerivRtyFine => format!("derivatives need pixel quads; {stage} programs have none"),
        O::Sample
        | O::SampleB
        | O::SampleC
        | O::Lod
        | O::SampleClampFeedback
        | O::SampleBClampFeedback
        | O::SampleCClampFeedback => {
            format!("an implicit level of detail needs derivatives; {stage} programs have none")
        }
        O::Discard | O::EvalSnapped | O::EvalSampleIndex | O::EvalCentroid => {
            "pixel shaders only".into()
        }
        O::Emit | O::EmitThenCut | O::Cut | O::EmitStream | O::CutStream | O::EmitThenCutStream => {
            "geometry shaders only".into()
        }
        O::InterfaceCall => "class linkage (interfaces) is not supported".into(),
        _ => String::new(),
    };
    if why.is_empty() {
        format!("opcode {m}")
    } else {
        format!("opcode {m} ({why})")
    }
}
