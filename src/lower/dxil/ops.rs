//! `dx.op` calls: each DXIL operation a compute, vertex or pixel program can use, by its
//! DXIL.rst name (the stage inputs and outputs and the pixel pipeline's operations are
//! in `stage`).
//!
//! Owns: the mapping of operations to IR instructions, including the conversions DXIL's
//! overloads need (16-bit results of 32-bit IR operations, booleans from 0/1 flags) and
//! the operand orders of DXIL.rst's signatures. Does not own: the operations' semantics
//! (see `ir::Inst` and `exec`).
//!
//! Decisions, each stated where it is made:
//! - `FirstbitHi`/`FirstbitSHi` count from the MSB in DXIL as in DXBC (DXIL.rst
//!   "FirstbitHi": 0x10000000 gives 3; dxc writes HLSL's `firstbithigh` as `31 − r`), so
//!   the 32- and 64-bit overloads are the IR's `firstbit_hi`/`firstbit_shi` unchanged; the
//!   16-bit overload counts from bit 15 and is `firstbit_hi` of the zero-extended (or,
//!   for `SHi`, sign-extended) value minus 16.
//! - `Dot2`/`Dot3`/`Dot4` are computed unfused: each product rounded, then added in order
//!   (`((a0·b0 + a1·b1) + a2·b2) + a3·b3`), as DXBC's `dp*` are specified (D3D11.3 §22.10).
//! - 16-bit float operations (`half` overloads) are computed in float and rounded to
//!   nearest even (WARP's rule, DESIGN "16-bit float math").
//! - `FMad` on `double` is a fused `dfma` (DXBC has no unfused double multiply-add).

use super::func::{FnLower, R, Val, at};
use super::layout::Leaf;
use super::resources::{HandleKind, class_code};
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::{Constant, InstKind, Instruction, ValueId};
use crate::ir::{
    AtomicOp, DerivKind, FClass, FUnOp, ICond, Inst, QuadDir, RangeId, Reg, ResourceKind,
    SampleArgs, SampleMode, Stage, SysVec, WaveOp, WaveTy, Width,
};

/// The registers of a `ResRet` result (see `FnLower::resret`).
struct ResRet {
    /// Destinations of the IR instruction (`_` where unread).
    dst: [Reg; 4],
    /// The status destination, or `_`.
    status: Reg,
    /// The value's leaves (placeholders where converted later).
    out: Vec<Reg>,
    /// Components to convert after the instruction: (leaf index, 32-bit result).
    post: Vec<(usize, Reg)>,
    /// The component leaf.
    leaf: Leaf,
}

impl<'m> FnLower<'m> {
    /// Argument `i` (after the opcode) of a call.
    pub(super) fn a(&self, c: &DxOpCall<'m>, i: usize) -> R<ValueId> {
        c.arg(i)
            .ok_or_else(|| self.invalid(format!("{} has no operand {i}", c.name())))
    }

    /// A constant integer argument.
    pub(super) fn ai(&self, c: &DxOpCall<'m>, i: usize) -> R<i64> {
        let v = self.a(c, i)?;
        self.const_int(v).ok_or_else(|| {
            self.unsupported(format!(
                "{} with operand {i} that is not a constant",
                c.name()
            ))
        })
    }

    /// The register of a scalar argument.
    /// (Lowering a vector-overloaded call element by element, `vectors::Lane`: the
    /// register of the element of a vector argument.)
    pub(super) fn ar(&mut self, c: &DxOpCall<'m>, i: usize) -> R<Reg> {
        let v = self.a(c, i)?;
        if let Some(k) = self.lane.as_ref().map(|l| l.k)
            && self.is_vector(v)
        {
            return self.element_reg(v, k);
        }
        self.reg(v)
    }

    /// The register of an argument, `_` when it is `undef` (unused operands of `dx.op`
    /// calls, DXIL.rst "LLVM's undef value is used for unused input parameters").
    pub(super) fn ao(&mut self, c: &DxOpCall<'m>, i: usize) -> R<Reg> {
        match c.arg(i) {
            Some(v) if !self.is_undef(v) => self.ar(c, i),
            _ => Ok(Reg::NONE),
        }
    }

    /// The leaf type of an argument (of a vector argument's element, see [`Self::ar`]).
    fn al(&self, c: &DxOpCall<'m>, i: usize) -> R<Leaf> {
        let v = self.a(c, i)?;
        let t = self.ty(v)?;
        if self.lane.is_some()
            && let Some(crate::dxil::llvm::Type::Vector { element, .. }) = self.m.ty(t)
        {
            return self.leaf(*element);
        }
        self.leaf(t)
    }

    /// What a handle argument names.
    pub(super) fn hkind(&self, c: &DxOpCall<'m>, i: usize) -> R<HandleKind> {
        let v = self.a(c, i)?;
        self.handles.get(&v).copied().ok_or_else(|| {
            self.unsupported(format!(
                "{} on a resource whose kind is not known (a heap handle without annotateHandle)",
                c.name()
            ))
        })
    }

    /// Which leaves of an aggregate result are read: those `extractvalue` takes, or all
    /// of them when the value is used whole (DXIL.rst "Resource operation return types":
    /// unused return values are determined from the SSA form).
    fn used(&self, res: Option<ValueId>, n: usize) -> Vec<bool> {
        let mut out = vec![false; n];
        let Some(v) = res else { return out };
        for &u in self.users.get(&v).map(Vec::as_slice).unwrap_or_default() {
            match self.body.instructions.get(u as usize).map(|i| &i.kind) {
                Some(InstKind::ExtractValue { aggregate, indices }) if *aggregate == v => {
                    if let Some(slot) = indices.first().and_then(|i| out.get_mut(*i as usize)) {
                        *slot = true;
                    }
                }
                _ => return vec![true; n],
            }
        }
        out
    }

    /// A placeholder register for an unread leaf of an aggregate result.
    fn unread(&mut self, l: Leaf) -> Reg {
        if l.wide() {
            self.b.konst64(0)
        } else {
            self.b.konst(0)
        }
    }

    /// Finds the range a `createHandle` or `createHandleFromBinding` names.
    pub fn binding_range(&self, c: &DxOpCall<'m>) -> R<(usize, HandleKind, u32)> {
        // createHandle names (class, range id); createHandleFromBinding a
        // %dx.types.ResBind { lower, upper, space, class }.
        let (class, id, bind) = if c.op() == DxOp::CreateHandle {
            (self.ai(c, 0)? as u8, Some(self.ai(c, 1)? as u32), None)
        } else {
            let v = self.a(c, 0)?;
            let f: Vec<i64> = match self.constant(v) {
                Some(Constant::Aggregate(ids)) => ids
                    .iter()
                    .map(|i| self.const_int(*i).unwrap_or(0))
                    .collect(),
                Some(Constant::Null) => vec![0; 4],
                _ => {
                    return Err(
                        self.unsupported("createHandleFromBinding of a non-constant binding")
                    );
                }
            };
            let at = |i: usize| f.get(i).copied().unwrap_or(0);
            (at(3) as u8, None, Some((at(2) as u32, at(0) as u32)))
        };
        let shader = self.b.shader();
        for (i, (r, ir)) in self.ranges.iter().zip(&shader.resources).enumerate() {
            let hit = match (id, bind) {
                (Some(id), _) => r.id == id,
                (None, Some((space, lower))) => ir.space == space && ir.lower == lower,
                _ => false,
            };
            if class_code(r.class) == class && hit {
                return Ok((i, r.handle, ir.lower));
            }
        }
        Err(self.invalid(format!(
            "{} names a resource the program does not declare",
            c.name()
        )))
    }

    /// The 16/32/64-bit access width of a component leaf.
    pub(super) fn width(&self, l: Leaf) -> R<Width> {
        Ok(match l {
            Leaf::I16 | Leaf::F16 => Width::B16,
            Leaf::I32 | Leaf::F32 => Width::B32,
            Leaf::I64 | Leaf::F64 => Width::B64,
            _ => return Err(self.unsupported(format!("a resource access of {l:?} values"))),
        })
    }

    /// Refuses the operations the stage cannot run: the compute thread ids outside
    /// compute (a graphics lane has no thread group), and the operations that take
    /// derivatives across a quad (implicit-LOD sampling, `CalculateLOD`, `Deriv*`)
    /// outside the stages that have quads: pixel programs and, since SM 6.6, compute,
    /// mesh and amplification programs (DXC's stage masks, e.g. `rdat_mintarget/
    /// sm68_samplecmpgradbias`: `SampleCmpBias` in pixel, compute, mesh and
    /// amplification programs, `SampleCmpGrad` in every stage). Vertex, hull, domain,
    /// geometry and ray-tracing programs have no quads.
    fn check_stage_of(&self, c: &DxOpCall<'m>) -> R<()> {
        let stage = self.io.stage;
        let bad = match c.op() {
            DxOp::ThreadId
            | DxOp::GroupId
            | DxOp::ThreadIdInGroup
            | DxOp::FlattenedThreadIdInGroup => {
                !matches!(stage, Stage::Compute | Stage::Mesh | Stage::Amplification)
            }
            DxOp::Sample
            | DxOp::SampleBias
            | DxOp::SampleCmp
            | DxOp::CalculateLOD
            | DxOp::DerivCoarseX
            | DxOp::DerivCoarseY
            | DxOp::DerivFineX
            | DxOp::DerivFineY
            | DxOp::SampleCmpBias => !matches!(
                stage,
                Stage::Pixel | Stage::Compute | Stage::Mesh | Stage::Amplification
            ),
            _ => false,
        };
        if bad {
            return Err(self.invalid(format!("dx.op {} in a {stage} shader", c.name())));
        }
        Ok(())
    }

    /// The SM 6.8 `Barrier` flags DXIL's validator accepts (HLSL SM 6.8 work graphs
    /// specification, "Barrier"; DXC's validation tests under `validation/barrier`):
    /// memory types are UAV 1, group shared 2, node input 4 and node output 8; semantics
    /// are GROUP_SYNC 1, GROUP_SCOPE 2 and DEVICE_SCOPE 4, plus SM 6.9's REORDER_SCOPE 8
    /// (shader execution reordering). Any other bit is refused, and so is a group sync,
    /// group scope or group-shared memory outside compute, mesh and amplification
    /// programs, which have no thread group ("must only sync UAV"). Node memory bits
    /// are let through, since no stage dxlane runs has node records: syncing them
    /// orders nothing. REORDER_SCOPE is let through too: dxlane never reorders lanes
    /// (`docs/raytracing.md`), so it orders nothing more.
    fn check_barrier_flags(&self, c: &DxOpCall<'m>, mem: i64, sem: i64) -> R<()> {
        let name = c.name();
        if mem & !0xF != 0 {
            return Err(self.invalid(format!(
                "{name}: memory type flags {mem:#x} have bits outside UAV_MEMORY | \
                 GROUP_SHARED_MEMORY | NODE_INPUT_MEMORY | NODE_OUTPUT_MEMORY (0xf)"
            )));
        }
        if sem & !0xF != 0 {
            return Err(self.invalid(format!(
                "{name}: semantic flags {sem:#x} have bits outside GROUP_SYNC | \
                 GROUP_SCOPE | DEVICE_SCOPE | REORDER_SCOPE (0xf)"
            )));
        }
        let stage = self.io.stage;
        let grouped = matches!(stage, Stage::Compute | Stage::Mesh | Stage::Amplification);
        if !grouped && (sem & 3 != 0 || mem & 2 != 0) {
            return Err(self.invalid(format!(
                "{name} in a {stage} shader with memory type flags {mem:#x} and semantic \
                 flags {sem:#x}: outside compute, mesh and amplification programs a \
                 barrier may only order UAV memory at device scope (no GROUP_SYNC, \
                 GROUP_SCOPE or GROUP_SHARED_MEMORY)"
            )));
        }
        Ok(())
    }

    /// Lowers one `dx.op` call.
    pub fn dx_op(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction) -> R<()> {
        let res = inst.result;
        let op = c.op();
        self.check_stage_of(c)?;
        match op {
            // ---- compute system values
            DxOp::ThreadId | DxOp::GroupId | DxOp::ThreadIdInGroup => {
                let axis = self.ai(c, 0)?;
                if !(0..3).contains(&axis) {
                    return Err(self.invalid(format!("{} of axis {axis}", c.name())));
                }
                let sv = match op {
                    DxOp::ThreadId => SysVec::ThreadId,
                    DxOp::GroupId => SysVec::GroupId,
                    _ => SysVec::GroupThreadId,
                };
                let d = self.op2(|dst| Inst::SysValue {
                    sv,
                    axis: axis as u8,
                    dst,
                });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::FlattenedThreadIdInGroup => {
                let d = self.op2(|dst| Inst::GroupIndex { dst });
                self.define(res, Val::Regs(vec![d]));
            }
            // ---- handles
            DxOp::CreateHandle | DxOp::CreateHandleFromBinding => {
                let (range, _, lower) = self.binding_range(c)?;
                let idx_arg = if op == DxOp::CreateHandle { 2 } else { 1 };
                let iv = self.a(c, idx_arg)?;
                // The index is the register number (DXIL.rst "Resource handles"); the
                // IR's is relative to the range.
                let index = match self.const_int(iv) {
                    Some(i) => self.k((i as u32).wrapping_sub(lower)),
                    None => {
                        let r = self.reg(iv)?;
                        if lower == 0 {
                            r
                        } else {
                            let l = self.k(lower);
                            self.op2(|dst| Inst::ISub { dst, a: r, b: l })
                        }
                    }
                };
                let range = RangeId(u32::try_from(range).unwrap_or(u32::MAX));
                let d = self.op2(|dst| Inst::Handle { dst, range, index });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::AnnotateHandle => {
                let h = self.a(c, 0)?;
                let r = self.regs(h)?;
                self.define(res, Val::Regs(r));
            }
            DxOp::CreateHandleFromHeap => {
                let index = self.ar(c, 0)?;
                let sampler = self.ai(c, 1)? & 1 != 0;
                let s = self.b.shader_mut();
                if sampler {
                    s.uses_sampler_heap = true;
                } else {
                    s.uses_resource_heap = true;
                }
                let d = self.op2(|dst| Inst::HeapHandle {
                    sampler,
                    dst,
                    index,
                });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::CreateHandleForLib => {
                let a = self.a(c, 0)?;
                // SM 6.6 libraries declare their resource globals as `%dx.types.Handle`:
                // the load already made the handle, which this passes on.
                if let Some(Val::Regs(r)) = self.vals.get(&a).cloned()
                    && r.len() == 1
                {
                    self.define(res, Val::Regs(r));
                    return Ok(());
                }
                let Some(Val::Resource(i)) = self.vals.get(&a).cloned() else {
                    return Err(self.unsupported(
                        "createHandleForLib of a value that is not a loaded resource global",
                    ));
                };
                let range = RangeId(u32::try_from(i).unwrap_or(u32::MAX));
                let index = self.k(0);
                let d = self.op2(|dst| Inst::Handle { dst, range, index });
                self.define(res, Val::Regs(vec![d]));
            }
            // ---- float unary
            DxOp::FAbs
            | DxOp::Saturate
            | DxOp::IsNaN
            | DxOp::IsInf
            | DxOp::IsFinite
            | DxOp::IsNormal
            | DxOp::Cos
            | DxOp::Sin
            | DxOp::Tan
            | DxOp::Acos
            | DxOp::Asin
            | DxOp::Atan
            | DxOp::Hcos
            | DxOp::Hsin
            | DxOp::Htan
            | DxOp::Exp
            | DxOp::Frc
            | DxOp::Log
            | DxOp::Sqrt
            | DxOp::Rsqrt
            | DxOp::Round_ne
            | DxOp::Round_ni
            | DxOp::Round_pi
            | DxOp::Round_z
            | DxOp::DerivCoarseX
            | DxOp::DerivCoarseY
            | DxOp::DerivFineX
            | DxOp::DerivFineY => self.float_unary(c, res)?,
            DxOp::Bfrev
            | DxOp::Countbits
            | DxOp::FirstbitLo
            | DxOp::FirstbitHi
            | DxOp::FirstbitSHi => self.bits_unary(c, res)?,
            DxOp::FMax | DxOp::FMin | DxOp::IMax | DxOp::IMin | DxOp::UMax | DxOp::UMin => {
                self.min_max(c, res)?
            }
            DxOp::IMul | DxOp::UMul | DxOp::UDiv => {
                let a = self.ar(c, 0)?;
                let b = self.ar(c, 1)?;
                let used = self.used(res, 2);
                let mut out = Vec::with_capacity(2);
                for (i, u) in used.iter().enumerate() {
                    if !u {
                        out.push(self.k(0));
                        continue;
                    }
                    // IMul/UMul give { hi, lo } (DXIL.rst "IMul": destHi, destLo), UDiv
                    // { quotient, remainder }.
                    out.push(self.op2(|dst| match (op, i) {
                        (DxOp::IMul, 0) => Inst::IMulHi { dst, a, b },
                        (DxOp::UMul, 0) => Inst::UMulHi { dst, a, b },
                        (DxOp::UDiv, 0) => Inst::UDiv { dst, a, b },
                        (DxOp::UDiv, _) => Inst::URem { dst, a, b },
                        _ => Inst::IMul { dst, a, b },
                    }));
                }
                self.define(res, Val::Regs(out));
            }
            DxOp::UAddc | DxOp::USubb => {
                let a = self.ar(c, 0)?;
                let b = self.ar(c, 1)?;
                let s = self.b.temp();
                let f = self.b.temp();
                self.emit(if op == DxOp::UAddc {
                    Inst::UAddc {
                        sum: s,
                        carry: f,
                        a,
                        b,
                    }
                } else {
                    Inst::USubb {
                        diff: s,
                        borrow: f,
                        a,
                        b,
                    }
                });
                // The carry is an i1: 1 becomes the IR's true.
                let flag = self.op2(|dst| Inst::INeg { dst, src: f });
                self.define(res, Val::Regs(vec![s, flag]));
            }
            DxOp::FMad
            | DxOp::Fma
            | DxOp::IMad
            | DxOp::UMad
            | DxOp::Msad
            | DxOp::Ibfe
            | DxOp::Ubfe => self.tertiary(c, inst, res)?,
            DxOp::Bfi => {
                let width = self.ar(c, 0)?;
                let offset = self.ar(c, 1)?;
                let insert = self.ar(c, 2)?;
                let base = self.ar(c, 3)?;
                let d = self.op2(|dst| Inst::Bfi {
                    dst,
                    width,
                    offset,
                    insert,
                    base,
                });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::Dot2 | DxOp::Dot3 | DxOp::Dot4 => self.dot(c, res)?,
            // ---- constant buffers
            DxOp::CBufferLoad => {
                let handle = self.ar(c, 0)?;
                let l = self.leaf(inst.ty)?;
                let width = self.width(l)?;
                let ov = self.a(c, 1)?;
                let (addr, offset) = match self.const_int(ov) {
                    Some(o) => (self.k(0), o as u32),
                    None => (self.reg(ov)?, 0),
                };
                let d = self.fresh(l);
                self.emit(Inst::CbLoad {
                    width,
                    mask: 1,
                    dst: [d, Reg::NONE, Reg::NONE, Reg::NONE],
                    handle,
                    addr,
                    offset,
                });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::CBufferLoadLegacy => self.cbuffer_legacy(c, inst, res)?,
            // ---- buffers and textures
            DxOp::BufferLoad | DxOp::RawBufferLoad => self.buffer_load(c, inst, res)?,
            DxOp::BufferStore | DxOp::RawBufferStore => self.buffer_store(c)?,
            DxOp::TextureLoad => self.texture_load(c, inst, res)?,
            // TextureStore, and TextureStoreSample (SM 6.7 writable MSAA textures), whose
            // sample index follows the mask.
            DxOp::TextureStore | DxOp::TextureStoreSample => {
                let handle = self.ar(c, 0)?;
                let coord = [self.ao(c, 1)?, self.ao(c, 2)?, self.ao(c, 3)?];
                let mask = (self.ai(c, 8)? & 0xf) as u8;
                let sample = if op == DxOp::TextureStoreSample {
                    self.ao(c, 9)?
                } else {
                    Reg::NONE
                };
                let src = self.store_values(c, 4, mask, self.hkind(c, 0)?, true)?;
                if mask != 0 {
                    self.emit(Inst::TypedStore {
                        handle,
                        coord,
                        sample,
                        src,
                        mask,
                    });
                }
            }
            DxOp::BufferUpdateCounter => {
                let handle = self.ar(c, 0)?;
                let dir = self.ai(c, 1)?;
                let d = self.op2(|dst| {
                    if dir == 1 {
                        Inst::CounterInc { dst, handle }
                    } else {
                        Inst::CounterDec { dst, handle }
                    }
                });
                if dir != 1 && dir != -1 && dir != 255 {
                    return Err(self.invalid(format!("BufferUpdateCounter by {dir}")));
                }
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::CheckAccessFullyMapped => {
                // Every access here is fully mapped; the status of a load is nonzero.
                let s = self.ar(c, 0)?;
                let d = self.ne_zero(s);
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::GetDimensions => self.dimensions(c, res)?,
            DxOp::Texture2DMSGetSamplePosition => {
                let handle = self.ar(c, 0)?;
                let index = self.ar(c, 1)?;
                let x = self.b.temp();
                let y = self.b.temp();
                self.emit(Inst::SamplePos {
                    dst: [x, y],
                    handle,
                    index,
                });
                self.define(res, Val::Regs(vec![x, y]));
            }
            DxOp::AtomicBinOp | DxOp::AtomicCompareExchange => self.resource_atomic(c, res)?,
            DxOp::Sample
            | DxOp::SampleBias
            | DxOp::SampleLevel
            | DxOp::SampleGrad
            | DxOp::SampleCmp
            | DxOp::SampleCmpLevelZero
            | DxOp::SampleCmpLevel
            | DxOp::SampleCmpGrad
            | DxOp::SampleCmpBias => self.sample(c, inst, res)?,
            DxOp::TextureGather | DxOp::TextureGatherCmp => self.gather(c, inst, res)?,
            DxOp::TextureGatherRaw => self.gather_raw(c, inst, res)?,
            DxOp::WriteSamplerFeedback
            | DxOp::WriteSamplerFeedbackBias
            | DxOp::WriteSamplerFeedbackLevel
            | DxOp::WriteSamplerFeedbackGrad => self.write_feedback(c)?,
            DxOp::CalculateLOD => {
                let texture = self.ar(c, 0)?;
                let sampler = self.ar(c, 1)?;
                let coord = [self.ao(c, 2)?, self.ao(c, 3)?, self.ao(c, 4)?];
                let clamped = self.ai(c, 5)? & 1 != 0;
                let d = self.b.temp();
                let dst = if clamped {
                    [d, Reg::NONE]
                } else {
                    [Reg::NONE, d]
                };
                self.emit(Inst::Lod {
                    dst,
                    texture,
                    sampler,
                    coord,
                });
                self.define(res, Val::Regs(vec![d]));
            }
            // ---- synchronisation
            DxOp::Barrier => {
                // DXIL BarrierMode: 1 SyncThreadGroup, 2 UAVFenceGlobal,
                // 4 UAVFenceThreadGroup, 8 TGSMFence.
                let m = self.ai(c, 0)?;
                self.emit(Inst::Barrier {
                    group_sync: m & 1 != 0,
                    group_memory: m & 8 != 0,
                    device_memory: m & 6 != 0,
                });
            }
            DxOp::BarrierByMemoryType => {
                // SM 6.8 BarrierByMemoryType(memory types, semantics): memory 1 UAV,
                // 2 group shared; semantics 1 GroupSync.
                let mem = self.ai(c, 0)?;
                let sem = self.ai(c, 1)?;
                self.check_barrier_flags(c, mem, sem)?;
                self.emit(Inst::Barrier {
                    group_sync: sem & 1 != 0,
                    group_memory: mem & 2 != 0,
                    device_memory: mem & 1 != 0,
                });
            }
            DxOp::BarrierByMemoryHandle => {
                // SM 6.8 BarrierByMemoryHandle(handle, semantics): a UAV's memory.
                let sem = self.ai(c, 1)?;
                self.check_barrier_flags(c, 1, sem)?;
                self.emit(Inst::Barrier {
                    group_sync: sem & 1 != 0,
                    group_memory: false,
                    device_memory: true,
                });
            }
            // ---- doubles and conversions
            DxOp::MakeDouble => {
                let lo = self.ar(c, 0)?;
                let hi = self.ar(c, 1)?;
                let d = self.b.temp64();
                self.emit(Inst::Mov { dst: d, src: lo });
                self.emit(Inst::Mov {
                    dst: d.hi(),
                    src: hi,
                });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::SplitDouble => {
                let d = self.ar(c, 0)?;
                self.define(res, Val::Regs(vec![d, d.hi()]));
            }
            DxOp::BitcastI16toF16
            | DxOp::BitcastF16toI16
            | DxOp::BitcastI32toF32
            | DxOp::BitcastF32toI32
            | DxOp::BitcastI64toF64
            | DxOp::BitcastF64toI64 => {
                let s = self.ar(c, 0)?;
                self.define(res, Val::Regs(vec![s]));
            }
            DxOp::LegacyF32ToF16
            | DxOp::LegacyF16ToF32
            | DxOp::LegacyDoubleToFloat
            | DxOp::LegacyDoubleToSInt32
            | DxOp::LegacyDoubleToUInt32 => {
                let src = self.ar(c, 0)?;
                let d = self.op2(|dst| match op {
                    DxOp::LegacyF32ToF16 => Inst::F32ToF16Legacy { dst, src },
                    DxOp::LegacyF16ToF32 => Inst::F16ToF32 { dst, src },
                    DxOp::LegacyDoubleToFloat => Inst::DToF { dst, src },
                    DxOp::LegacyDoubleToSInt32 => Inst::DToI { dst, src },
                    _ => Inst::DToU { dst, src },
                });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::CycleCounterLegacy => {
                let d = self.op64(|dst| Inst::CycleCounter { dst });
                self.define(res, Val::Regs(vec![d, d.hi()]));
            }
            DxOp::IsHelperLane => {
                let d = self.op2(|dst| Inst::IsHelper { dst });
                self.define(res, Val::Regs(vec![d]));
            }
            // SM 6.10 (hlsl-specs proposal 0039): true only when a debugger runs the
            // program; a break stops only a debugger, so elsewhere it lowers to nothing.
            DxOp::IsDebuggingEnabled => {
                // An i1 in a register is 0 or all ones.
                let k = self.k(if self.io.debugging { u32::MAX } else { 0 });
                let d = self.op2(|dst| Inst::Mov { dst, src: k });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::DebugBreak if self.io.debugging => {
                let k = self.k(0);
                self.op2(|dst| Inst::Mov { dst, src: k });
            }
            DxOp::DebugBreak => {}
            // ---- waves and quads
            DxOp::WaveIsFirstLane
            | DxOp::WaveGetLaneIndex
            | DxOp::WaveGetLaneCount
            | DxOp::WaveAnyTrue
            | DxOp::WaveAllTrue
            | DxOp::WaveActiveAllEqual
            | DxOp::WaveActiveBallot
            | DxOp::WaveReadLaneAt
            | DxOp::WaveReadLaneFirst
            | DxOp::WaveActiveOp
            | DxOp::WaveActiveBit
            | DxOp::WavePrefixOp
            | DxOp::QuadReadLaneAt
            | DxOp::QuadOp
            | DxOp::WaveAllBitCount
            | DxOp::WavePrefixBitCount
            | DxOp::WaveMatch
            | DxOp::WaveMultiPrefixOp
            | DxOp::WaveMultiPrefixBitCount
            | DxOp::QuadVote => self.wave(c, res)?,
            // ---- packed arithmetic
            DxOp::Dot2AddHalf | DxOp::Dot4AddI8Packed | DxOp::Dot4AddU8Packed => {
                self.dot_packed(c, res)?
            }
            DxOp::Unpack4x8 => {
                let signed = self.ai(c, 0)? & 1 != 0;
                let src = self.ar(c, 1)?;
                let leaves = self.leaves(inst.ty)?;
                let eight = self.k(8);
                let mut out = Vec::with_capacity(4);
                for (k, l) in leaves.iter().enumerate().take(4) {
                    let off = self.k(u32::try_from(k * 8).unwrap_or(0));
                    let r = self.op2(|dst| {
                        if signed {
                            Inst::IBfe {
                                dst,
                                width: eight,
                                offset: off,
                                src,
                            }
                        } else {
                            Inst::UBfe {
                                dst,
                                width: eight,
                                offset: off,
                                src,
                            }
                        }
                    });
                    out.push(if *l == Leaf::I16 && signed {
                        self.and_k(r, 0xffff)
                    } else {
                        r
                    });
                }
                self.define(res, Val::Regs(out));
            }
            DxOp::Pack4x8 => self.pack(c, res)?,
            // ---- stage inputs and outputs, the pixel pipeline (`stage`)
            DxOp::LoadInput
            | DxOp::StoreOutput
            | DxOp::RenderTargetGetSamplePosition
            | DxOp::RenderTargetGetSampleCount
            | DxOp::Discard
            | DxOp::EvalSnapped
            | DxOp::EvalSampleIndex
            | DxOp::EvalCentroid
            | DxOp::SampleIndex
            | DxOp::Coverage
            | DxOp::InnerCoverage
            | DxOp::PrimitiveID
            | DxOp::AttributeAtVertex
            | DxOp::ViewID
            | DxOp::StartVertexLocation
            | DxOp::StartInstanceLocation => self.stage_op(c, inst, res)?,
            // ---- hull and domain programs (`hull`)
            DxOp::OutputControlPointID
            | DxOp::DomainLocation
            | DxOp::LoadOutputControlPoint
            | DxOp::LoadPatchConstant
            | DxOp::StorePatchConstant => self.tess_op(c, inst, res)?,
            // ---- geometry programs (`geometry`)
            DxOp::EmitStream | DxOp::CutStream | DxOp::EmitThenCutStream | DxOp::GSInstanceID => {
                self.geometry_op(c, res)?
            }
            // ---- mesh and amplification programs (`mesh`)
            DxOp::SetMeshOutputCounts
            | DxOp::EmitIndices
            | DxOp::StoreVertexOutput
            | DxOp::StorePrimitiveOutput
            | DxOp::GetMeshPayload
            | DxOp::DispatchMesh => self.mesh_op(c, inst, res)?,
            // ---- DXR ray-tracing programs (`rays`)
            DxOp::DispatchRaysIndex
            | DxOp::DispatchRaysDimensions
            | DxOp::WorldRayOrigin
            | DxOp::WorldRayDirection
            | DxOp::ObjectRayOrigin
            | DxOp::ObjectRayDirection
            | DxOp::ObjectToWorld
            | DxOp::WorldToObject
            | DxOp::RayTMin
            | DxOp::RayTCurrent
            | DxOp::RayFlags
            | DxOp::InstanceIndex
            | DxOp::InstanceID
            | DxOp::PrimitiveIndex
            | DxOp::GeometryIndex
            | DxOp::HitKind
            | DxOp::TraceRay
            | DxOp::CallShader
            | DxOp::ReportHit
            | DxOp::IgnoreHit
            | DxOp::AcceptHitAndEndSearch => self.ray_op(c, res)?,
            // ---- shader execution reordering (`hit_object`)
            DxOp::HitObject_TraceRay
            | DxOp::HitObject_FromRayQuery
            | DxOp::HitObject_FromRayQueryWithAttrs
            | DxOp::HitObject_MakeMiss
            | DxOp::HitObject_MakeNop
            | DxOp::HitObject_Invoke
            | DxOp::MaybeReorderThread
            | DxOp::HitObject_IsMiss
            | DxOp::HitObject_IsHit
            | DxOp::HitObject_IsNop
            | DxOp::HitObject_RayFlags
            | DxOp::HitObject_RayTMin
            | DxOp::HitObject_RayTCurrent
            | DxOp::HitObject_WorldRayOrigin
            | DxOp::HitObject_WorldRayDirection
            | DxOp::HitObject_ObjectRayOrigin
            | DxOp::HitObject_ObjectRayDirection
            | DxOp::HitObject_ObjectToWorld3x4
            | DxOp::HitObject_WorldToObject3x4
            | DxOp::HitObject_GeometryIndex
            | DxOp::HitObject_InstanceIndex
            | DxOp::HitObject_InstanceID
            | DxOp::HitObject_PrimitiveIndex
            | DxOp::HitObject_HitKind
            | DxOp::HitObject_ShaderTableIndex
            | DxOp::HitObject_SetShaderTableIndex
            | DxOp::HitObject_LoadLocalRootTableConstant
            | DxOp::HitObject_Attributes => self.hit_object(c, res)?,
            // ---- inline ray queries (`ray_query`)
            DxOp::AllocateRayQuery
            | DxOp::AllocateRayQuery2
            | DxOp::RayQuery_TraceRayInline
            | DxOp::RayQuery_Proceed
            | DxOp::RayQuery_Abort
            | DxOp::RayQuery_CommitNonOpaqueTriangleHit
            | DxOp::RayQuery_CommitProceduralPrimitiveHit
            | DxOp::RayQuery_CommittedStatus
            | DxOp::RayQuery_CandidateType
            | DxOp::RayQuery_CandidateObjectToWorld3x4
            | DxOp::RayQuery_CandidateWorldToObject3x4
            | DxOp::RayQuery_CommittedObjectToWorld3x4
            | DxOp::RayQuery_CommittedWorldToObject3x4
            | DxOp::RayQuery_CandidateProceduralPrimitiveNonOpaque
            | DxOp::RayQuery_CandidateTriangleFrontFace
            | DxOp::RayQuery_CommittedTriangleFrontFace
            | DxOp::RayQuery_CandidateTriangleBarycentrics
            | DxOp::RayQuery_CommittedTriangleBarycentrics
            | DxOp::RayQuery_RayFlags
            | DxOp::RayQuery_WorldRayOrigin
            | DxOp::RayQuery_WorldRayDirection
            | DxOp::RayQuery_RayTMin
            | DxOp::RayQuery_CandidateTriangleRayT
            | DxOp::RayQuery_CommittedRayT
            | DxOp::RayQuery_CandidateInstanceIndex
            | DxOp::RayQuery_CandidateInstanceID
            | DxOp::RayQuery_CandidateGeometryIndex
            | DxOp::RayQuery_CandidatePrimitiveIndex
            | DxOp::RayQuery_CandidateObjectRayOrigin
            | DxOp::RayQuery_CandidateObjectRayDirection
            | DxOp::RayQuery_CommittedInstanceIndex
            | DxOp::RayQuery_CommittedInstanceID
            | DxOp::RayQuery_CommittedGeometryIndex
            | DxOp::RayQuery_CommittedPrimitiveIndex
            | DxOp::RayQuery_CommittedObjectRayOrigin
            | DxOp::RayQuery_CommittedObjectRayDirection
            | DxOp::RayQuery_CandidateInstanceContributionToHitGroupIndex
            | DxOp::RayQuery_CommittedInstanceContributionToHitGroupIndex => {
                self.ray_query(c, res)?
            }
            _ => {
                return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode())));
            }
        }
        Ok(())
    }

    /// Float unary operations and derivatives on half, float and double.
    fn float_unary(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        let l = self.al(c, 0)?;
        let x = self.ar(c, 0)?;
        let d = match op {
            DxOp::FAbs => match l {
                // FAbs clears the sign, denormals and NaNs included (DXIL.rst "FAbs").
                Leaf::F32 => self.and_k(x, 0x7fff_ffff),
                Leaf::F16 => self.and_k(x, 0x7fff),
                Leaf::F64 => {
                    let d = self.b.temp64();
                    let m = self.k(0x7fff_ffff);
                    self.emit(Inst::Mov { dst: d, src: x });
                    self.emit(Inst::And {
                        dst: d.hi(),
                        a: x.hi(),
                        b: m,
                    });
                    d
                }
                _ => return Err(self.invalid("FAbs of an integer")),
            },
            DxOp::IsNaN | DxOp::IsInf | DxOp::IsFinite | DxOp::IsNormal => {
                let class = match op {
                    DxOp::IsNaN => FClass::Nan,
                    DxOp::IsInf => FClass::Inf,
                    DxOp::IsFinite => FClass::Finite,
                    _ => FClass::Normal,
                };
                match l {
                    Leaf::F32 => self.op2(|dst| Inst::FTest { class, dst, src: x }),
                    Leaf::F64 => self.op2(|dst| Inst::DTest { class, dst, src: x }),
                    Leaf::F16 => self.half_class(class, x),
                    _ => return Err(self.invalid("a float test of an integer")),
                }
            }
            DxOp::Saturate if l == Leaf::F64 => {
                // saturate(x) = min(max(x, 0), 1); max(NaN, 0) = 0 (min/max return the
                // other operand of a NaN), so NaN gives 0 as the float rule says.
                let zero = self.b.konst64(0);
                let one = self.b.konst64(1f64.to_bits());
                let t = self.op64(|dst| Inst::DMax { dst, a: x, b: zero });
                self.op64(|dst| Inst::DMin { dst, a: t, b: one })
            }
            DxOp::DerivCoarseX | DxOp::DerivCoarseY | DxOp::DerivFineX | DxOp::DerivFineY => {
                let kind = match op {
                    DxOp::DerivCoarseX => DerivKind::CoarseX,
                    DxOp::DerivCoarseY => DerivKind::CoarseY,
                    DxOp::DerivFineX => DerivKind::FineX,
                    _ => DerivKind::FineY,
                };
                self.in_float(l, x, |src, dst| Inst::Deriv { kind, dst, src })?
            }
            _ => {
                let f = match op {
                    DxOp::Saturate => FUnOp::Sat,
                    DxOp::Cos => FUnOp::Cos,
                    DxOp::Sin => FUnOp::Sin,
                    DxOp::Tan => FUnOp::Tan,
                    DxOp::Acos => FUnOp::Acos,
                    DxOp::Asin => FUnOp::Asin,
                    DxOp::Atan => FUnOp::Atan,
                    DxOp::Hcos => FUnOp::Cosh,
                    DxOp::Hsin => FUnOp::Sinh,
                    DxOp::Htan => FUnOp::Tanh,
                    DxOp::Exp => FUnOp::Exp2,
                    DxOp::Frc => FUnOp::Frac,
                    DxOp::Log => FUnOp::Log2,
                    DxOp::Sqrt => FUnOp::Sqrt,
                    DxOp::Rsqrt => FUnOp::Rsq,
                    DxOp::Round_ne => FUnOp::RoundNe,
                    DxOp::Round_ni => FUnOp::Floor,
                    DxOp::Round_pi => FUnOp::Ceil,
                    _ => FUnOp::Trunc,
                };
                if l == Leaf::F64 {
                    if f == FUnOp::Sqrt {
                        self.op64(|dst| Inst::DSqrt { dst, src: x })
                    } else {
                        return Err(self.unsupported(format!("dx.op {} on double", c.name())));
                    }
                } else {
                    self.in_float(l, x, |src, dst| Inst::FUnary { op: f, dst, src })?
                }
            }
        };
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// Runs a float instruction on a float or half value (half: widened exactly, the
    /// result rounded to nearest even).
    fn in_float(&mut self, l: Leaf, x: Reg, f: impl FnOnce(Reg, Reg) -> Inst) -> R<Reg> {
        match l {
            Leaf::F32 => Ok(self.op2(|dst| f(x, dst))),
            Leaf::F16 => {
                let w = self.h2f(x);
                let r = self.op2(|dst| f(w, dst));
                Ok(self.f2h(r))
            }
            _ => Err(self.unsupported(format!("a float operation on {l:?}"))),
        }
    }

    /// IsNaN/IsInf/IsFinite/IsNormal of a half, on its bits (a half denormal widens to a
    /// normal float, so the float test would be wrong for IsNormal).
    fn half_class(&mut self, class: FClass, x: Reg) -> Reg {
        let mag = self.and_k(x, 0x7fff);
        let exp = self.and_k(x, 0x7c00);
        let inf = self.k(0x7c00);
        match class {
            FClass::Nan => self.op2(|dst| Inst::ICmp {
                cond: ICond::UGt,
                dst,
                a: mag,
                b: inf,
            }),
            FClass::Inf => self.op2(|dst| Inst::ICmp {
                cond: ICond::Eq,
                dst,
                a: mag,
                b: inf,
            }),
            FClass::Finite => self.op2(|dst| Inst::ICmp {
                cond: ICond::Ne,
                dst,
                a: exp,
                b: inf,
            }),
            FClass::Normal => {
                let z = self.k(0);
                let a = self.op2(|dst| Inst::ICmp {
                    cond: ICond::Ne,
                    dst,
                    a: exp,
                    b: inf,
                });
                let b = self.op2(|dst| Inst::ICmp {
                    cond: ICond::Ne,
                    dst,
                    a: exp,
                    b: z,
                });
                self.op2(|dst| Inst::And { dst, a, b })
            }
        }
    }

    /// Bfrev, Countbits, FirstbitLo/Hi/SHi on 16, 32 and 64 bits (see the module doc for
    /// the 16-bit FirstbitHi).
    fn bits_unary(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        let l = self.al(c, 0)?;
        let x = self.ar(c, 0)?;
        let d = match (op, l) {
            (DxOp::Bfrev, Leaf::I32) => self.op2(|dst| Inst::Bfrev { dst, src: x }),
            (DxOp::Bfrev, Leaf::I64) => self.op64(|dst| Inst::Bfrev64 { dst, src: x }),
            (DxOp::Bfrev, Leaf::I16) => {
                let r = self.op2(|dst| Inst::Bfrev { dst, src: x });
                let s = self.k(16);
                self.op2(|dst| Inst::UShr { dst, a: r, b: s })
            }
            (DxOp::Countbits, Leaf::I64) => self.op2(|dst| Inst::CountBits64 { dst, src: x }),
            (DxOp::Countbits, _) => self.op2(|dst| Inst::CountBits { dst, src: x }),
            (DxOp::FirstbitLo, Leaf::I64) => self.op2(|dst| Inst::FirstBitLo64 { dst, src: x }),
            (DxOp::FirstbitLo, _) => self.op2(|dst| Inst::FirstBitLo { dst, src: x }),
            (DxOp::FirstbitHi, Leaf::I64) => self.op2(|dst| Inst::FirstBitHi64 { dst, src: x }),
            (DxOp::FirstbitSHi, Leaf::I64) => self.op2(|dst| Inst::FirstBitShi64 { dst, src: x }),
            (DxOp::FirstbitHi, Leaf::I32) => self.op2(|dst| Inst::FirstBitHi { dst, src: x }),
            (DxOp::FirstbitSHi, Leaf::I32) => self.op2(|dst| Inst::FirstBitShi { dst, src: x }),
            (DxOp::FirstbitHi | DxOp::FirstbitSHi, Leaf::I16) => {
                let src = if op == DxOp::FirstbitSHi {
                    self.sext(x, 16)
                } else {
                    x
                };
                let r = self.op2(|dst| {
                    if op == DxOp::FirstbitHi {
                        Inst::FirstBitHi { dst, src }
                    } else {
                        Inst::FirstBitShi { dst, src }
                    }
                });
                self.first_bit_hi16(r)
            }
            _ => return Err(self.unsupported(format!("dx.op {} on {l:?}", c.name()))),
        };
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// Converts a 32-bit `firstbit_hi` index (from bit 31) of a 16-bit value widened to
    /// 32 bits into the 16-bit overload's index (from bit 15); "none" stays 0xffffffff.
    pub fn first_bit_hi16(&mut self, r: Reg) -> Reg {
        let sixteen = self.k(16);
        let none = self.k(u32::MAX);
        let t = self.op2(|dst| Inst::ISub {
            dst,
            a: r,
            b: sixteen,
        });
        let is_none = self.op2(|dst| Inst::ICmp {
            cond: ICond::Eq,
            dst,
            a: r,
            b: none,
        });
        self.op2(|dst| Inst::Select {
            dst,
            cond: is_none,
            a: none,
            b: t,
        })
    }

    /// FMax, FMin, IMax, IMin, UMax, UMin.
    fn min_max(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        let l = self.al(c, 0)?;
        let a = self.ar(c, 0)?;
        let b = self.ar(c, 1)?;
        let d = match (op, l) {
            (DxOp::FMax | DxOp::FMin, Leaf::F64) => self.op64(|dst| {
                if op == DxOp::FMax {
                    Inst::DMax { dst, a, b }
                } else {
                    Inst::DMin { dst, a, b }
                }
            }),
            (DxOp::FMax | DxOp::FMin, Leaf::F32 | Leaf::F16) => {
                let (x, y) = if l == Leaf::F16 {
                    (self.h2f(a), self.h2f(b))
                } else {
                    (a, b)
                };
                let r = self.op2(|dst| {
                    if op == DxOp::FMax {
                        Inst::FMax { dst, a: x, b: y }
                    } else {
                        Inst::FMin { dst, a: x, b: y }
                    }
                });
                if l == Leaf::F16 { self.f2h(r) } else { r }
            }
            (DxOp::IMax | DxOp::IMin | DxOp::UMax | DxOp::UMin, Leaf::I64) => {
                self.op64(|dst| match op {
                    DxOp::IMax => Inst::I64Max { dst, a, b },
                    DxOp::IMin => Inst::I64Min { dst, a, b },
                    DxOp::UMax => Inst::U64Max { dst, a, b },
                    _ => Inst::U64Min { dst, a, b },
                })
            }
            (DxOp::IMax | DxOp::IMin, Leaf::I16) => {
                let x = self.sext(a, 16);
                let y = self.sext(b, 16);
                let r = self.op2(|dst| {
                    if op == DxOp::IMax {
                        Inst::IMax { dst, a: x, b: y }
                    } else {
                        Inst::IMin { dst, a: x, b: y }
                    }
                });
                self.and_k(r, 0xffff)
            }
            (DxOp::IMax | DxOp::IMin | DxOp::UMax | DxOp::UMin, Leaf::I32 | Leaf::I16) => {
                self.op2(|dst| match op {
                    DxOp::IMax => Inst::IMax { dst, a, b },
                    DxOp::IMin => Inst::IMin { dst, a, b },
                    DxOp::UMax => Inst::UMax { dst, a, b },
                    _ => Inst::UMin { dst, a, b },
                })
            }
            _ => return Err(self.unsupported(format!("dx.op {} on {l:?}", c.name()))),
        };
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// FMad, Fma, IMad, UMad, Msad, Ibfe, Ubfe.
    fn tertiary(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        let l = self.al(c, 0)?;
        let a = self.ar(c, 0)?;
        let b = self.ar(c, 1)?;
        let cc = self.ar(c, 2)?;
        let precise = self
            .precise_kind
            .is_some_and(|k| inst.attachments.iter().any(|(kind, _)| *kind == k));
        let d = match (op, l) {
            (DxOp::FMad | DxOp::Fma, Leaf::F64) => self.op64(|dst| Inst::DFma { dst, a, b, c: cc }),
            (DxOp::FMad, Leaf::F32 | Leaf::F16) => {
                let (x, y, z) = if l == Leaf::F16 {
                    (self.h2f(a), self.h2f(b), self.h2f(cc))
                } else {
                    (a, b, cc)
                };
                // dx.precise: never fused (DXIL.rst "FMad": not fused for precise).
                let r = self.op2(|dst| {
                    if precise {
                        Inst::FMadPrecise {
                            dst,
                            a: x,
                            b: y,
                            c: z,
                        }
                    } else {
                        Inst::FMad {
                            dst,
                            a: x,
                            b: y,
                            c: z,
                        }
                    }
                });
                if l == Leaf::F16 { self.f2h(r) } else { r }
            }
            (DxOp::IMad | DxOp::UMad, Leaf::I32) => self.op2(|dst| Inst::IMad { dst, a, b, c: cc }),
            (DxOp::IMad | DxOp::UMad, Leaf::I16) => {
                let r = self.op2(|dst| Inst::IMad { dst, a, b, c: cc });
                self.and_k(r, 0xffff)
            }
            (DxOp::IMad | DxOp::UMad, Leaf::I64) => {
                let p = self.op64(|dst| Inst::I64Mul { dst, a, b });
                self.op64(|dst| Inst::I64Add { dst, a: p, b: cc })
            }
            (DxOp::Msad, Leaf::I32) => self.op2(|dst| Inst::Msad {
                dst,
                reference: a,
                src: b,
                accum: cc,
            }),
            (DxOp::Ibfe, Leaf::I32) => self.op2(|dst| Inst::IBfe {
                dst,
                width: a,
                offset: b,
                src: cc,
            }),
            (DxOp::Ubfe, Leaf::I32) => self.op2(|dst| Inst::UBfe {
                dst,
                width: a,
                offset: b,
                src: cc,
            }),
            _ => return Err(self.unsupported(format!("dx.op {} on {l:?}", c.name()))),
        };
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// Dot2/Dot3/Dot4: products rounded one by one, then summed in order.
    fn dot(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let n = match c.op() {
            DxOp::Dot2 => 2,
            DxOp::Dot3 => 3,
            _ => 4,
        };
        let l = self.al(c, 0)?;
        let mut xs = Vec::with_capacity(2 * n);
        for i in 0..2 * n {
            let r = self.ar(c, i)?;
            xs.push(if l == Leaf::F16 { self.h2f(r) } else { r });
        }
        let mut acc: Option<Reg> = None;
        for i in 0..n {
            let a = self.inv(at(&xs, i))?;
            let b = self.inv(at(&xs, i + n))?;
            let p = self.op2(|dst| Inst::FMul { dst, a, b });
            acc = Some(match acc {
                None => p,
                Some(s) => self.op2(|dst| Inst::FAdd { dst, a: s, b: p }),
            });
        }
        let mut d = acc.ok_or_else(|| self.invalid("empty dot product"))?;
        if l == Leaf::F16 {
            d = self.f2h(d);
        }
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// Dot2AddHalf (`(a0·b0 + a1·b1) + acc` in float), Dot4AddI8Packed and
    /// Dot4AddU8Packed (`acc + Σ a_k·b_k` over the four bytes, signed or unsigned).
    fn dot_packed(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let acc = self.ar(c, 0)?;
        let d = if c.op() == DxOp::Dot2AddHalf {
            let mut h = Vec::with_capacity(4);
            for i in 1..5 {
                let r = self.ar(c, i)?;
                h.push(self.h2f(r));
            }
            let [a0, a1, b0, b1] = h.as_slice() else {
                return Err(self.invalid("Dot2AddHalf without four halves"));
            };
            let (a0, a1, b0, b1) = (*a0, *a1, *b0, *b1);
            let p0 = self.op2(|dst| Inst::FMul { dst, a: a0, b: b0 });
            let p1 = self.op2(|dst| Inst::FMul { dst, a: a1, b: b1 });
            let s = self.op2(|dst| Inst::FAdd { dst, a: p0, b: p1 });
            self.op2(|dst| Inst::FAdd { dst, a: s, b: acc })
        } else {
            let signed = c.op() == DxOp::Dot4AddI8Packed;
            let a = self.ar(c, 1)?;
            let b = self.ar(c, 2)?;
            let eight = self.k(8);
            let mut sum = acc;
            for k in 0..4u32 {
                let off = self.k(8 * k);
                let ext = |dst, src| {
                    if signed {
                        Inst::IBfe {
                            dst,
                            width: eight,
                            offset: off,
                            src,
                        }
                    } else {
                        Inst::UBfe {
                            dst,
                            width: eight,
                            offset: off,
                            src,
                        }
                    }
                };
                let x = self.op2(|dst| ext(dst, a));
                let y = self.op2(|dst| ext(dst, b));
                sum = self.op2(|dst| Inst::IMad {
                    dst,
                    a: x,
                    b: y,
                    c: sum,
                });
            }
            sum
        };
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// Pack4x8: packMode 0 truncates each value to 8 bits, 1 clamps to [0, 255] (unsigned
    /// clamp of a signed value), 2 clamps to [−128, 127].
    fn pack(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let mode = self.ai(c, 0)?;
        let l = self.al(c, 1)?;
        let mut out: Option<Reg> = None;
        for k in 0..4u32 {
            let mut v = self.ar(c, 1 + k as usize)?;
            if mode != 0 {
                if l == Leaf::I16 {
                    v = self.sext(v, 16);
                }
                let (lo, hi) = if mode == 1 {
                    (0u32, 255u32)
                } else {
                    ((-128i32) as u32, 127)
                };
                let lo = self.k(lo);
                let hi = self.k(hi);
                let t = self.op2(|dst| Inst::IMax { dst, a: v, b: lo });
                v = self.op2(|dst| Inst::IMin { dst, a: t, b: hi });
            }
            let byte = self.and_k(v, 0xff);
            let shifted = if k == 0 {
                byte
            } else {
                let s = self.k(8 * k);
                self.op2(|dst| Inst::Shl { dst, a: byte, b: s })
            };
            out = Some(match out {
                None => shifted,
                Some(o) => self.op2(|dst| Inst::Or {
                    dst,
                    a: o,
                    b: shifted,
                }),
            });
        }
        let d = out.ok_or_else(|| self.invalid("empty pack"))?;
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// CBufferLoadLegacy: one 16-byte row (DXIL.rst "CBufferLoadLegacy"); its components
    /// are 4 × 32-bit, 8 × 16-bit or 2 × 64-bit by the overload, read in groups of four.
    fn cbuffer_legacy(
        &mut self,
        c: &DxOpCall<'m>,
        inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let handle = self.ar(c, 0)?;
        let rv = self.a(c, 1)?;
        let leaves = self.leaves(inst.ty)?;
        let l = *leaves
            .first()
            .ok_or_else(|| self.invalid("empty CBufRet"))?;
        let width = self.width(l)?;
        let esize: u32 = match width {
            Width::B16 => 2,
            Width::B32 => 4,
            Width::B64 => 8,
        };
        let (addr, base) = match self.const_int(rv) {
            Some(row) => (self.k(0), (row as u32).wrapping_mul(16)),
            None => {
                let r = self.reg(rv)?;
                let four = self.k(4);
                (self.op2(|dst| Inst::Shl { dst, a: r, b: four }), 0)
            }
        };
        let used = self.used(res, leaves.len());
        let mut out: Vec<Reg> = Vec::with_capacity(leaves.len());
        for (group, chunk) in used.chunks(4).enumerate() {
            let mut dst = [Reg::NONE; 4];
            let mut mask = 0u8;
            for (i, u) in chunk.iter().enumerate() {
                let r = if *u {
                    let r = self.fresh(l);
                    if let Some(d) = dst.get_mut(i) {
                        *d = r;
                    }
                    mask |= 1 << i;
                    r
                } else {
                    self.unread(l)
                };
                out.push(r);
            }
            if mask != 0 {
                let g = u32::try_from(group).unwrap_or(0);
                self.emit(Inst::CbLoad {
                    width,
                    mask,
                    dst,
                    handle,
                    addr,
                    offset: base.wrapping_add(g * 4 * esize),
                });
            }
        }
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// The four values of a store (arguments `first..first + 4`) under `mask`; `typed`
    /// stores convert half values to float and sign-extend 16-bit integers of signed
    /// views (the IR's typed stores take 32-bit components).
    fn store_values(
        &mut self,
        c: &DxOpCall<'m>,
        first: usize,
        mask: u8,
        h: HandleKind,
        typed: bool,
    ) -> R<[Reg; 4]> {
        let l = self.al(c, first)?;
        let mut src = [Reg::NONE; 4];
        for (i, s) in src.iter_mut().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let v = self.a(c, first + i)?;
            let mut r = if self.is_undef(v) {
                self.unread(l)
            } else {
                self.reg(v)?
            };
            if typed {
                r = match l {
                    Leaf::F16 => self.h2f(r),
                    Leaf::I16 if h.component == crate::ir::ComponentType::SInt => self.sext(r, 16),
                    _ => r,
                };
            }
            *s = r;
        }
        Ok(src)
    }

    /// The destination registers of a `ResRet` result: `dst` for the IR instruction (`_`
    /// where unread), and the value's leaves after converting 32-bit results of a 16-bit
    /// overload (float → half rounded to nearest even, integers masked).
    fn resret(&mut self, res: Option<ValueId>, inst: &'m Instruction, convert: bool) -> R<ResRet> {
        let leaves = self.leaves(inst.ty)?;
        let used = self.used(res, leaves.len());
        let l = *leaves.first().ok_or_else(|| self.invalid("empty ResRet"))?;
        let mut dst = [Reg::NONE; 4];
        let mut out = Vec::with_capacity(5);
        let mut post = Vec::new();
        for (i, d) in dst.iter_mut().enumerate() {
            if used.get(i).copied().unwrap_or(false) {
                if convert && matches!(l, Leaf::F16 | Leaf::I16) {
                    let t = self.b.temp();
                    *d = t;
                    post.push((i, t));
                    out.push(Reg::NONE);
                } else {
                    let r = self.fresh(l);
                    *d = r;
                    out.push(r);
                }
            } else {
                out.push(self.unread(l));
            }
        }
        let status = if used.get(4).copied().unwrap_or(false) {
            self.b.temp()
        } else {
            Reg::NONE
        };
        out.push(if status.is_none() { self.k(0) } else { status });
        Ok(ResRet {
            dst,
            status,
            out,
            post,
            leaf: l,
        })
    }

    /// Emits the conversions `resret` asked for (after the instruction) and returns the
    /// value's leaves.
    fn finish_resret(&mut self, rr: ResRet) -> Vec<Reg> {
        let ResRet {
            mut out,
            post,
            leaf: l,
            ..
        } = rr;
        for (i, t) in post {
            let r = if l == Leaf::F16 {
                self.f2h(t)
            } else {
                self.and_k(t, 0xffff)
            };
            if let Some(slot) = out.get_mut(i) {
                *slot = r;
            }
        }
        out
    }

    /// BufferLoad (typed, raw or structured by the resource) and RawBufferLoad.
    fn buffer_load(
        &mut self,
        c: &DxOpCall<'m>,
        inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let raw_op = c.op() == DxOp::RawBufferLoad;
        let h = self.hkind(c, 0)?;
        let handle = self.ar(c, 0)?;
        let index = self.ar(c, 1)?;
        let offset = self.ao(c, 2)?;
        if h.kind == ResourceKind::TypedBuffer && !raw_op {
            let rr = self.resret(res, inst, true)?;
            let (dst, status) = (rr.dst, rr.status);
            self.emit(Inst::TypedLoad {
                dst,
                handle,
                coord: [index, Reg::NONE, Reg::NONE],
                mip: Reg::NONE,
                sample: Reg::NONE,
                offset: [0; 3],
                status,
            });
            let out = self.finish_resret(rr);
            self.define(res, Val::Regs(out));
            return Ok(());
        }
        let leaves = self.leaves(inst.ty)?;
        let l = *leaves.first().ok_or_else(|| self.invalid("empty ResRet"))?;
        let width = self.width(l)?;
        let used = self.used(res, leaves.len());
        // RawBufferLoad states the components it reads; BufferLoad reads up to the
        // last one used.
        let mask = if raw_op {
            (self.ai(c, 3)? & 0xf) as u8
        } else {
            let last = used.iter().take(4).rposition(|u| *u).unwrap_or(0);
            (1u8 << (last + 1)) - 1
        };
        let mut dst = [Reg::NONE; 4];
        let mut out = Vec::with_capacity(5);
        for (i, d) in dst.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                *d = self.fresh(l);
                out.push(*d);
            } else {
                out.push(self.unread(l));
            }
        }
        // Raw and structured accesses have no residency status: always mapped.
        out.push(self.k(1));
        if mask != 0 {
            let inst = match h.kind {
                ResourceKind::RawBuffer => Inst::RawLoad {
                    width,
                    mask,
                    dst,
                    handle,
                    addr: index,
                },
                ResourceKind::StructuredBuffer { .. } => Inst::StructLoad {
                    width,
                    mask,
                    dst,
                    handle,
                    index,
                    offset: if offset.is_none() { self.k(0) } else { offset },
                },
                other => {
                    return Err(self.unsupported(format!("{} on a {other}", c.name())));
                }
            };
            self.emit(inst);
        }
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// BufferStore and RawBufferStore.
    fn buffer_store(&mut self, c: &DxOpCall<'m>) -> R<()> {
        let h = self.hkind(c, 0)?;
        let handle = self.ar(c, 0)?;
        let index = self.ar(c, 1)?;
        let offset = self.ao(c, 2)?;
        let mask = (self.ai(c, 7)? & 0xf) as u8;
        if mask == 0 {
            return Ok(());
        }
        let typed = h.kind == ResourceKind::TypedBuffer;
        let src = self.store_values(c, 3, mask, h, typed)?;
        let l = self.al(c, 3)?;
        let inst = match h.kind {
            ResourceKind::TypedBuffer => Inst::TypedStore {
                handle,
                coord: [index, Reg::NONE, Reg::NONE],
                sample: Reg::NONE,
                src,
                mask,
            },
            ResourceKind::RawBuffer => Inst::RawStore {
                width: self.width(l)?,
                mask,
                handle,
                addr: index,
                src,
            },
            ResourceKind::StructuredBuffer { .. } => Inst::StructStore {
                width: self.width(l)?,
                mask,
                handle,
                index,
                offset: if offset.is_none() { self.k(0) } else { offset },
                src,
            },
            other => return Err(self.unsupported(format!("{} on a {other}", c.name()))),
        };
        self.emit(inst);
        Ok(())
    }

    /// A constant texel offset (`undef` is 0; DXIL.rst: offsets are constants in
    /// [−8, 7]).
    fn texel_offset(&self, c: &DxOpCall<'m>, i: usize) -> R<i8> {
        let v = self.a(c, i)?;
        if self.is_undef(v) {
            return Ok(0);
        }
        let o = self.const_int(v).ok_or_else(|| {
            self.unsupported(format!(
                "{} with a texel offset that is not a constant",
                c.name()
            ))
        })?;
        i8::try_from(o).map_err(|_| self.invalid(format!("texel offset {o}")))
    }

    /// TextureLoad: mip level, or sample index for multisampled textures.
    fn texture_load(
        &mut self,
        c: &DxOpCall<'m>,
        inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let h = self.hkind(c, 0)?;
        let handle = self.ar(c, 0)?;
        let ms = matches!(
            h.kind,
            ResourceKind::Texture2DMS | ResourceKind::Texture2DMSArray
        );
        let level = self.ao(c, 1)?;
        let (mip, sample) = if ms {
            (Reg::NONE, level)
        } else {
            (level, Reg::NONE)
        };
        let coord = [self.ao(c, 2)?, self.ao(c, 3)?, self.ao(c, 4)?];
        let offset = [
            self.texel_offset(c, 5)?,
            self.texel_offset(c, 6)?,
            self.texel_offset(c, 7)?,
        ];
        let rr = self.resret(res, inst, true)?;
        let (dst, status) = (rr.dst, rr.status);
        self.emit(Inst::TypedLoad {
            dst,
            handle,
            coord,
            mip,
            sample,
            offset,
            status,
        });
        let out = self.finish_resret(rr);
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// GetDimensions; a multisampled texture's fourth component is its sample count
    /// (DXIL.rst "GetDimensions").
    fn dimensions(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let h = self.hkind(c, 0)?;
        let handle = self.ar(c, 0)?;
        let mip = self.ao(c, 1)?;
        let used = self.used(res, 4);
        let ms = matches!(
            h.kind,
            ResourceKind::Texture2DMS | ResourceKind::Texture2DMSArray
        );
        let mut dst = [Reg::NONE; 4];
        let mut out = Vec::with_capacity(4);
        for (i, d) in dst.iter_mut().enumerate() {
            if used.get(i).copied().unwrap_or(false) {
                *d = self.b.temp();
                out.push(*d);
            } else {
                out.push(self.k(0));
            }
        }
        if ms && !dst[3].is_none() {
            let s = dst[3];
            dst[3] = Reg::NONE;
            self.emit(Inst::SampleCount { dst: s, handle });
        }
        if dst.iter().any(|d| !d.is_none()) {
            self.emit(Inst::Dimensions { dst, handle, mip });
        }
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// AtomicBinOp and AtomicCompareExchange on UAVs (32 and 64 bits).
    fn resource_atomic(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let cas = c.op() == DxOp::AtomicCompareExchange;
        let handle = self.ar(c, 0)?;
        let first = if cas { 1 } else { 2 };
        let coord = [
            self.ao(c, first)?,
            self.ao(c, first + 1)?,
            self.ao(c, first + 2)?,
        ];
        let l = self.al(c, first + 3)?;
        let wide = match l {
            Leaf::I32 => false,
            Leaf::I64 => true,
            _ => return Err(self.unsupported(format!("{} on {l:?}", c.name()))),
        };
        let used = res.is_some_and(|v| self.uses.get(&v).copied().unwrap_or(0) > 0);
        let dst = match (used, wide) {
            (false, _) => Reg::NONE,
            (true, false) => self.b.temp(),
            (true, true) => self.b.temp64(),
        };
        if cas {
            let cmp = self.ar(c, 4)?;
            let src = self.ar(c, 5)?;
            self.emit(if wide {
                Inst::ResCmpXchg64 {
                    dst,
                    handle,
                    coord,
                    cmp,
                    src,
                }
            } else {
                Inst::ResCmpXchg {
                    dst,
                    handle,
                    coord,
                    cmp,
                    src,
                }
            });
        } else {
            // DXIL AtomicBinOpCode: 0 Add, 1 And, 2 Or, 3 Xor, 4 IMin, 5 IMax, 6 UMin,
            // 7 UMax, 8 Exchange.
            let op = match self.ai(c, 1)? {
                0 => AtomicOp::Add,
                1 => AtomicOp::And,
                2 => AtomicOp::Or,
                3 => AtomicOp::Xor,
                4 => AtomicOp::IMin,
                5 => AtomicOp::IMax,
                6 => AtomicOp::UMin,
                7 => AtomicOp::UMax,
                8 => AtomicOp::Exchange,
                other => return Err(self.invalid(format!("atomic operation {other}"))),
            };
            let src = self.ar(c, 5)?;
            self.emit(if wide {
                Inst::ResAtomic64 {
                    op,
                    dst,
                    handle,
                    coord,
                    src,
                }
            } else {
                Inst::ResAtomic {
                    op,
                    dst,
                    handle,
                    coord,
                    src,
                }
            });
        }
        if !dst.is_none() {
            self.define(res, Val::Regs(vec![dst]));
        }
        Ok(())
    }

    /// Sample, SampleBias, SampleLevel, SampleGrad, SampleCmp, SampleCmpLevelZero,
    /// SampleCmpLevel, SampleCmpGrad, SampleCmpBias (operand orders of DXIL.rst).
    fn sample(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        let texture = self.ar(c, 0)?;
        let sampler = self.ar(c, 1)?;
        let coord = [
            self.ao(c, 2)?,
            self.ao(c, 3)?,
            self.ao(c, 4)?,
            self.ao(c, 5)?,
        ];
        let offset = [
            self.texel_offset(c, 6)?,
            self.texel_offset(c, 7)?,
            self.texel_offset(c, 8)?,
        ];
        let mut lod = Reg::NONE;
        let mut reference = Reg::NONE;
        let mut ddx = [Reg::NONE; 3];
        let mut ddy = [Reg::NONE; 3];
        let mut clamp = Reg::NONE;
        let mode = match op {
            DxOp::Sample => {
                clamp = self.ao(c, 9)?;
                SampleMode::Implicit
            }
            DxOp::SampleBias => {
                lod = self.ar(c, 9)?;
                clamp = self.ao(c, 10)?;
                SampleMode::Bias
            }
            DxOp::SampleLevel => {
                lod = self.ar(c, 9)?;
                SampleMode::Level
            }
            DxOp::SampleGrad => {
                ddx = [self.ao(c, 9)?, self.ao(c, 10)?, self.ao(c, 11)?];
                ddy = [self.ao(c, 12)?, self.ao(c, 13)?, self.ao(c, 14)?];
                clamp = self.ao(c, 15)?;
                SampleMode::Grad
            }
            DxOp::SampleCmp => {
                reference = self.ar(c, 9)?;
                clamp = self.ao(c, 10)?;
                SampleMode::Cmp
            }
            DxOp::SampleCmpLevelZero => {
                reference = self.ar(c, 9)?;
                SampleMode::CmpLevelZero
            }
            DxOp::SampleCmpLevel => {
                reference = self.ar(c, 9)?;
                lod = self.ar(c, 10)?;
                SampleMode::CmpLevel
            }
            DxOp::SampleCmpGrad => {
                reference = self.ar(c, 9)?;
                ddx = [self.ao(c, 10)?, self.ao(c, 11)?, self.ao(c, 12)?];
                ddy = [self.ao(c, 13)?, self.ao(c, 14)?, self.ao(c, 15)?];
                clamp = self.ao(c, 16)?;
                SampleMode::CmpGrad
            }
            // SampleCmpBias
            _ => {
                reference = self.ar(c, 9)?;
                lod = self.ar(c, 10)?;
                clamp = self.ao(c, 11)?;
                SampleMode::CmpBias
            }
        };
        if matches!(op, DxOp::SampleBias | DxOp::SampleCmpBias) {
            self.check_immediate_bias(c, if op == DxOp::SampleBias { 9 } else { 10 })?;
        }
        let rr = self.resret(res, inst, true)?;
        let (dst, status) = (rr.dst, rr.status);
        self.emit(Inst::Sample {
            mode,
            args: Box::new(SampleArgs {
                dst,
                texture,
                sampler,
                coord,
                offset,
                dyn_offset: [Reg::NONE; 2],
                lod,
                reference,
                ddx,
                ddy,
                clamp,
                status,
            }),
        });
        let out = self.finish_resret(rr);
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// DXIL validation's `Instr.ImmBiasForSampleB` (DXC's `ValidateSampleInst`), which
    /// the SM 6.8 expanded comparison sampling proposal (0014) extends to
    /// `SampleCmpBias`: a bias operand that is a constant lies in [−16, 15.99]
    /// (`D3D12_MIP_LOD_BIAS_MIN`/`MAX`). A computed bias is not checked, as DXC does not.
    fn check_immediate_bias(&self, c: &DxOpCall<'m>, i: usize) -> R<()> {
        let v = self.a(c, i)?;
        if let Some(Constant::Float(bits)) = self.constant(v) {
            let b = f32::from_bits(*bits as u32);
            // A NaN bias is let through, as DXC's `< -16 || > 15.99` lets it.
            if !b.is_nan() && !(-16.0..=15.99).contains(&b) {
                return Err(self.invalid(format!(
                    "{}: the immediate bias {b} is outside [-16, 15.99]",
                    c.name()
                )));
            }
        }
        Ok(())
    }

    /// The texture, sampler, coordinates and offsets of a gather (operands 0–7 of
    /// `TextureGather`, `TextureGatherCmp` and `TextureGatherRaw`); offsets that are not
    /// constants are the programmable offsets of `gather4_po`.
    fn gather_operands(&mut self, c: &DxOpCall<'m>) -> R<SampleArgs> {
        let texture = self.ar(c, 0)?;
        let sampler = self.ar(c, 1)?;
        let coord = [
            self.ao(c, 2)?,
            self.ao(c, 3)?,
            self.ao(c, 4)?,
            self.ao(c, 5)?,
        ];
        let o0 = self.a(c, 6)?;
        let o1 = self.a(c, 7)?;
        let dynamic = [o0, o1]
            .iter()
            .any(|v| !self.is_undef(*v) && self.const_int(*v).is_none());
        let (offset, dyn_offset) = if dynamic {
            ([0; 3], [self.ao(c, 6)?, self.ao(c, 7)?])
        } else {
            (
                [self.texel_offset(c, 6)?, self.texel_offset(c, 7)?, 0],
                [Reg::NONE; 2],
            )
        };
        Ok(SampleArgs {
            dst: [Reg::NONE; 4],
            texture,
            sampler,
            coord,
            offset,
            dyn_offset,
            lod: Reg::NONE,
            reference: Reg::NONE,
            ddx: [Reg::NONE; 3],
            ddy: [Reg::NONE; 3],
            clamp: Reg::NONE,
            status: Reg::NONE,
        })
    }

    /// TextureGather and TextureGatherCmp.
    fn gather(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction, res: Option<ValueId>) -> R<()> {
        let mut args = self.gather_operands(c)?;
        let channel = self.ai(c, 8)?;
        let channel = u8::try_from(channel)
            .ok()
            .filter(|ch| *ch < 4)
            .ok_or_else(|| self.invalid(format!("gather of channel {channel}")))?;
        let mode = if c.op() == DxOp::TextureGatherCmp {
            args.reference = self.ar(c, 9)?;
            SampleMode::Cmp
        } else {
            SampleMode::Implicit
        };
        let rr = self.resret(res, inst, true)?;
        (args.dst, args.status) = (rr.dst, rr.status);
        self.emit(Inst::Gather {
            mode,
            channel,
            args: Box::new(args),
        });
        let out = self.finish_resret(rr);
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// WriteSamplerFeedback, …Bias, …Level, …Grad (SM 6.5; DirectX-Specs "Sampler
    /// Feedback", "DXIL Resource Operations"): operand 0 a feedback map, 1 the sampled
    /// texture — a 2D texture for a `FeedbackTexture2D`, a 2D array for a
    /// `FeedbackTexture2DArray` ("Valid resource type") —, 2 a sampler, 3–6 the
    /// coordinates (u, v, and the array slice for arrays), then bias and clamp, the LOD,
    /// or the gradients and clamp. Any other handle is refused.
    ///
    /// `WriteSamplerFeedback` and `…Bias` take their LOD from derivatives and are the
    /// pixel stage's only ("HLSL constructs for writing to feedback maps": PS Y, non-PS
    /// N; dxc's op table allows them in pixel programs and libraries, although SM 6.6
    /// gives compute, mesh and amplification programs `Sample` and derivatives), so in
    /// any other stage they are refused, naming the operation and the stage.
    fn write_feedback(&mut self, c: &DxOpCall<'m>) -> R<()> {
        let op = c.op();
        let name = c.name();
        let implicit = matches!(
            op,
            DxOp::WriteSamplerFeedback | DxOp::WriteSamplerFeedbackBias
        );
        if implicit && self.io.stage != Stage::Pixel {
            return Err(self.invalid(format!(
                "{name} in a {} program: it is allowed in pixel programs only (DirectX-Specs \"Sampler Feedback\", \"HLSL constructs for writing to feedback maps\"; the Level and Grad forms run in every stage)",
                self.io.stage.words()
            )));
        }
        let fk = self.hkind(c, 0)?.kind;
        let tk = self.hkind(c, 1)?.kind;
        let sk = self.hkind(c, 2)?.kind;
        let want = match fk {
            ResourceKind::FeedbackTexture2D { .. } => ResourceKind::Texture2D,
            ResourceKind::FeedbackTexture2DArray { .. } => ResourceKind::Texture2DArray,
            k => {
                return Err(self.invalid(format!(
                    "{name} writes to a {} (operand 1 must be a feedback texture: FeedbackTexture2D or FeedbackTexture2DArray)",
                    k.job_name()
                )));
            }
        };
        if tk != want {
            return Err(self.invalid(format!(
                "{name}: a {} pairs with a {}, not a {} (operand 2)",
                fk.job_name(),
                want.job_name(),
                tk.job_name()
            )));
        }
        if !matches!(sk, ResourceKind::Sampler { .. }) {
            return Err(self.invalid(format!(
                "{name}: operand 3 is a {}, not a sampler",
                sk.job_name()
            )));
        }
        let feedback = self.ar(c, 0)?;
        let texture = self.ar(c, 1)?;
        let sampler = self.ar(c, 2)?;
        let coord = [
            self.ao(c, 3)?,
            self.ao(c, 4)?,
            self.ao(c, 5)?,
            self.ao(c, 6)?,
        ];
        let mut lod = Reg::NONE;
        let mut ddx = [Reg::NONE; 3];
        let mut ddy = [Reg::NONE; 3];
        let (mode, clamp) = match op {
            DxOp::WriteSamplerFeedbackBias => {
                lod = self.ar(c, 7)?;
                (SampleMode::Bias, self.ao(c, 8)?)
            }
            DxOp::WriteSamplerFeedbackLevel => {
                lod = self.ar(c, 7)?;
                (SampleMode::Level, Reg::NONE)
            }
            DxOp::WriteSamplerFeedbackGrad => {
                ddx = [self.ao(c, 7)?, self.ao(c, 8)?, self.ao(c, 9)?];
                ddy = [self.ao(c, 10)?, self.ao(c, 11)?, self.ao(c, 12)?];
                (SampleMode::Grad, self.ao(c, 13)?)
            }
            _ => (SampleMode::Implicit, self.ao(c, 7)?),
        };
        self.emit(Inst::WriteFeedback {
            mode,
            feedback,
            args: Box::new(SampleArgs {
                dst: [Reg::NONE; 4],
                texture,
                sampler,
                coord,
                offset: [0; 3],
                dyn_offset: [Reg::NONE; 2],
                lod,
                reference: Reg::NONE,
                ddx,
                ddy,
                clamp,
                status: Reg::NONE,
            }),
        });
        Ok(())
    }

    /// TextureGatherRaw (SM 6.7, HLSL "Raw Gather Methods"): the overload's width is the
    /// element's (i16, i32, i64); a 64-bit element is gathered as its two words, joined
    /// here. Only 2D and 2D-array textures gather raw ("Note that `<TexObject>` does not
    /// include cube textures"; Issues 4: "2D textures and 2Darray textures").
    fn gather_raw(
        &mut self,
        c: &DxOpCall<'m>,
        inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let h = self.hkind(c, 0)?;
        if !matches!(
            h.kind,
            ResourceKind::Texture2D | ResourceKind::Texture2DArray
        ) {
            return Err(self.invalid(format!(
                "TextureGatherRaw on a {:?} (only 2D and 2D-array textures gather raw)",
                h.kind
            )));
        }
        let args = self.gather_operands(c)?;
        let rr = self.resret(res, inst, true)?;
        let bits = match rr.leaf {
            Leaf::I16 => 16,
            Leaf::I32 => 32,
            Leaf::I64 => 64,
            l => return Err(self.invalid(format!("TextureGatherRaw of {l:?} elements"))),
        };
        if bits != 64 {
            self.emit(Inst::GatherRaw {
                bits,
                word: 0,
                args: Box::new(SampleArgs {
                    dst: rr.dst,
                    status: rr.status,
                    ..args
                }),
            });
            let out = self.finish_resret(rr);
            self.define(res, Val::Regs(out));
            return Ok(());
        }
        // 64 bits: the low words, then the high words, into the pairs `resret` made.
        let mut halves = [[Reg::NONE; 4]; 2];
        for (word, dst) in halves.iter_mut().enumerate() {
            for (d, pair) in dst.iter_mut().zip(&rr.dst) {
                if !pair.is_none() {
                    *d = self.b.temp();
                }
            }
            self.emit(Inst::GatherRaw {
                bits,
                word: word as u8,
                args: Box::new(SampleArgs {
                    dst: *dst,
                    status: if word == 0 { rr.status } else { Reg::NONE },
                    ..args.clone()
                }),
            });
        }
        let [low, high] = halves;
        for ((pair, lo), hi) in rr.dst.iter().zip(low).zip(high) {
            if pair.is_none() {
                continue;
            }
            self.emit(Inst::Mov {
                dst: *pair,
                src: lo,
            });
            self.emit(Inst::Mov {
                dst: pair.hi(),
                src: hi,
            });
        }
        let out = self.finish_resret(rr);
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// The IR wave type of an overload and DXIL's sign operand (0 signed, 1 unsigned).
    fn wave_ty(&self, c: &DxOpCall<'m>, l: Leaf, unsigned: bool) -> R<WaveTy> {
        Ok(match l {
            Leaf::F16 => WaveTy::F16,
            Leaf::F32 => WaveTy::F32,
            Leaf::F64 => WaveTy::F64,
            Leaf::I16 if unsigned => WaveTy::U16,
            Leaf::I16 => WaveTy::I16,
            Leaf::I32 if unsigned => WaveTy::U32,
            Leaf::I32 => WaveTy::I32,
            Leaf::I64 if unsigned => WaveTy::U64,
            Leaf::I64 => WaveTy::I64,
            _ => return Err(self.unsupported(format!("dx.op {} on {l:?}", c.name()))),
        })
    }

    /// `WaveMatch` of a vector (SM 6.9: 0030 "DXIL Vectors" Appendix 1 gives it a
    /// vector overload): the lanes whose whole vector equals this lane's, which is the
    /// AND of the element-wise matches — how dxc lowers a vector `WaveMatch` for shader
    /// models without native vectors (`HLOperationLower` "translateWaveMatch": one
    /// `waveMatch` per element, the masks AND-ed). Elements compare as the scalar
    /// `wave_match` does, by their bits (a NaN matches the same NaN; −0 does not match +0).
    fn wave_match_vector(&mut self, c: &DxOpCall<'m>) -> R<Vec<Reg>> {
        let v = self.a(c, 0)?;
        let leaves = self.leaves(self.ty(v)?)?;
        let mut acc: Option<[Reg; 4]> = None;
        for (k, l) in leaves.iter().enumerate() {
            if !matches!(
                l,
                Leaf::F16 | Leaf::F32 | Leaf::F64 | Leaf::I16 | Leaf::I32 | Leaf::I64
            ) {
                return Err(self.unsupported(format!("dx.op WaveMatch on a vector of {l:?}")));
            }
            let src = self.element_reg(v, k)?;
            let dst = [self.b.temp(), self.b.temp(), self.b.temp(), self.b.temp()];
            self.emit(Inst::WaveMatch {
                wide: l.wide(),
                dst,
                src,
            });
            acc = Some(match acc {
                None => dst,
                Some(prev) => {
                    let mut both = [Reg::NONE; 4];
                    for (b, (x, y)) in both.iter_mut().zip(prev.iter().zip(&dst)) {
                        let (a, bb) = (*x, *y);
                        *b = self.op2(|dst| Inst::And { dst, a, b: bb });
                    }
                    both
                }
            });
        }
        let out = acc.ok_or_else(|| self.invalid("WaveMatch of an empty vector"))?;
        Ok(out.to_vec())
    }

    /// Wave and quad operations.
    fn wave(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        let out: Vec<Reg> = match op {
            DxOp::WaveIsFirstLane => vec![self.op2(|dst| Inst::WaveIsFirstLane { dst })],
            DxOp::WaveGetLaneIndex => vec![self.op2(|dst| Inst::LaneIndex { dst })],
            DxOp::WaveGetLaneCount => vec![self.op2(|dst| Inst::LaneCount { dst })],
            DxOp::WaveAnyTrue
            | DxOp::WaveAllTrue
            | DxOp::WaveAllBitCount
            | DxOp::WavePrefixBitCount => {
                let src = self.ar(c, 0)?;
                vec![self.op2(|dst| match op {
                    DxOp::WaveAnyTrue => Inst::WaveAnyTrue { dst, src },
                    DxOp::WaveAllTrue => Inst::WaveAllTrue { dst, src },
                    DxOp::WaveAllBitCount => Inst::WaveCountBits { dst, src },
                    _ => Inst::WavePrefixCountBits { dst, src },
                })]
            }
            DxOp::WaveActiveAllEqual => {
                let wide = self.al(c, 0)?.wide();
                let src = self.ar(c, 0)?;
                vec![self.op2(|dst| Inst::WaveAllEqual { wide, dst, src })]
            }
            DxOp::WaveMatch if self.is_vector(self.a(c, 0)?) => self.wave_match_vector(c)?,
            DxOp::WaveActiveBallot | DxOp::WaveMatch => {
                let src = self.ar(c, 0)?;
                let dst = [self.b.temp(), self.b.temp(), self.b.temp(), self.b.temp()];
                self.emit(if op == DxOp::WaveActiveBallot {
                    Inst::WaveBallot { dst, src }
                } else {
                    let wide = self.al(c, 0)?.wide();
                    Inst::WaveMatch { wide, dst, src }
                });
                dst.to_vec()
            }
            DxOp::WaveReadLaneAt
            | DxOp::WaveReadLaneFirst
            | DxOp::QuadReadLaneAt
            | DxOp::QuadOp => {
                let l = self.al(c, 0)?;
                let wide = l.wide();
                let src = self.ar(c, 0)?;
                let dst = self.fresh(l);
                let inst = match op {
                    DxOp::WaveReadLaneAt => Inst::WaveReadLane {
                        wide,
                        dst,
                        src,
                        lane: self.ar(c, 1)?,
                    },
                    DxOp::WaveReadLaneFirst => Inst::WaveReadFirst { wide, dst, src },
                    DxOp::QuadReadLaneAt => Inst::QuadReadLane {
                        wide,
                        dst,
                        src,
                        lane: self.ar(c, 1)?,
                    },
                    _ => Inst::QuadSwap {
                        // DXIL QuadOpKind: 0 ReadAcrossX, 1 ReadAcrossY, 2 ReadAcrossDiagonal.
                        dir: match self.ai(c, 1)? {
                            0 => QuadDir::X,
                            1 => QuadDir::Y,
                            2 => QuadDir::Diagonal,
                            o => return Err(self.invalid(format!("QuadOp {o}"))),
                        },
                        wide,
                        dst,
                        src,
                    },
                };
                self.emit(inst);
                vec![dst]
            }
            DxOp::WaveActiveOp | DxOp::WavePrefixOp | DxOp::WaveMultiPrefixOp => {
                // WaveOpKind: 0 Sum, 1 Product, 2 Min, 3 Max. WaveMultiPrefixOpKind has its
                // own order (DXC `DxilConstants.h`): 0 Sum, 1 And, 2 Or, 3 Xor, 4
                // Product. SignedOpKind 0 signed, 1 unsigned. Operands: value, (four mask
                // words for MultiPrefix), op, sign.
                let l = self.al(c, 0)?;
                let src = self.ar(c, 0)?;
                let multi = op == DxOp::WaveMultiPrefixOp;
                let (k, s) = if multi { (5, 6) } else { (1, 2) };
                let wop = match (multi, self.ai(c, k)?) {
                    (true, 0) => WaveOp::Sum,
                    (true, 1) => WaveOp::And,
                    (true, 2) => WaveOp::Or,
                    (true, 3) => WaveOp::Xor,
                    (true, 4) => WaveOp::Product,
                    (true, o) => {
                        return Err(self.invalid(format!("wave multi-prefix operation {o}")));
                    }
                    (_, 0) => WaveOp::Sum,
                    (_, 1) => WaveOp::Product,
                    (_, 2) => WaveOp::Min,
                    (_, 3) => WaveOp::Max,
                    (_, o) => return Err(self.invalid(format!("wave operation {o}"))),
                };
                let ty = self.wave_ty(c, l, self.ai(c, s)? & 1 != 0)?;
                let dst = self.fresh(l);
                let inst = match op {
                    DxOp::WaveActiveOp => Inst::WaveReduce {
                        op: wop,
                        ty,
                        dst,
                        src,
                    },
                    DxOp::WavePrefixOp => Inst::WavePrefix {
                        op: wop,
                        ty,
                        dst,
                        src,
                    },
                    _ => Inst::WaveMultiPrefix {
                        op: wop,
                        ty,
                        dst,
                        src,
                        mask: [
                            self.ar(c, 1)?,
                            self.ar(c, 2)?,
                            self.ar(c, 3)?,
                            self.ar(c, 4)?,
                        ],
                    },
                };
                self.emit(inst);
                vec![dst]
            }
            DxOp::WaveActiveBit => {
                // WaveBitOpKind: 0 And, 1 Or, 2 Xor.
                let l = self.al(c, 0)?;
                let src = self.ar(c, 0)?;
                let wop = match self.ai(c, 1)? {
                    0 => WaveOp::And,
                    1 => WaveOp::Or,
                    2 => WaveOp::Xor,
                    o => return Err(self.invalid(format!("wave bit operation {o}"))),
                };
                let ty = self.wave_ty(c, l, true)?;
                let dst = self.fresh(l);
                self.emit(Inst::WaveReduce {
                    op: wop,
                    ty,
                    dst,
                    src,
                });
                vec![dst]
            }
            DxOp::WaveMultiPrefixBitCount => {
                let src = self.ar(c, 0)?;
                let mask = [
                    self.ar(c, 1)?,
                    self.ar(c, 2)?,
                    self.ar(c, 3)?,
                    self.ar(c, 4)?,
                ];
                vec![self.op2(|dst| Inst::WaveMultiPrefixCountBits { dst, src, mask })]
            }
            // QuadVote: QuadVoteOpKind 0 Any, 1 All.
            _ => {
                let src = self.ar(c, 0)?;
                let all = self.ai(c, 1)? & 1 != 0;
                vec![self.op2(|dst| Inst::QuadVote { all, dst, src })]
            }
        };
        self.define(res, Val::Regs(out));
        Ok(())
    }
}
