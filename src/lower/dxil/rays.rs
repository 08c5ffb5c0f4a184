//! DXR ray-tracing programs: a library export of a ray generation, intersection, any-hit,
//! closest-hit, miss or callable kind, its payload, parameter and attributes, and the
//! DXR dx.ops (`DispatchRaysIndex` … `HitKind`, `TraceRay`, `CallShader`, `ReportHit`,
//! `IgnoreHit`, `AcceptHitAndEndSearch`).
//!
//! Owns: the entry function's pointer arguments as per-lane arrays ([`RayState`]):
//! DXR spec "Shader parameters" — any-hit and closest-hit take `(inout payload, in
//! attributes)`, miss `(inout payload)`, callable `(inout parameter)`, ray generation
//! and intersection nothing; each array is the pointee's size by the module's data
//! layout, checked against the entry's declared sizes (entry-point tags 6 and 7, when
//! present). And the operand orders of the DXR dx.ops (DXIL.rst), lowered to `rt_get`,
//! `rt_trace`, `rt_call`, `rt_report_hit` and `rt_hit_end`: the memory `TraceRay`,
//! `CallShader` and `ReportHit` pass is a per-lane array and byte offset, with the size
//! of the pointee. Does not own: what the instructions do (`pipeline::rays` through
//! `exec`), or the library's resource globals (`memory`, `createHandleForLib`).

use super::func::{FnLower, Ptr, R, Root, Val};
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::{Type, ValueId};
use crate::dxil::meta::{EntryPoint, Property};
use crate::ir::{
    Inst, LocalId, MAX_RAY_ATTRIBUTE_BYTES, MAX_RAY_PAYLOAD_BYTES, RayHitOp, RayState,
    RaySystemValue, Reg, ResourceKind, Stage, TRACE_RAY_ARGS,
};

/// The sizes a library entry declares for its payload (tag 6, `RayPayloadSize`; a
/// callable program's parameter size) and attributes (tag 7, `RayAttributeSize`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Declared {
    /// The declared payload or parameter size.
    pub payload: Option<u32>,
    /// The declared attribute size.
    pub attributes: Option<u32>,
}

impl Declared {
    /// The sizes an entry point's properties declare.
    pub fn of(e: &EntryPoint) -> Declared {
        let mut d = Declared::default();
        for (_, p) in &e.properties {
            match p {
                Property::RayPayloadSize(n) => d.payload = Some(*n),
                Property::RayAttributeSize(n) => d.attributes = Some(*n),
                _ => {}
            }
        }
        d
    }
}

/// What the entry function's parameters are, by stage (DXR spec "Shader parameters").
fn parameters(stage: Stage) -> &'static [&'static str] {
    match stage {
        Stage::AnyHit | Stage::ClosestHit => &["payload", "attributes"],
        Stage::Miss => &["payload"],
        Stage::Callable => &["parameter"],
        _ => &[],
    }
}

/// A DXR call's memory operand: the per-lane array, variable and constant offset, and
/// size (`FnLower::ray_memory`).
type RayMemory = (LocalId, Reg, u32, u32);

impl<'m> FnLower<'m> {
    /// Gives each pointer argument of a ray-tracing entry a per-lane array of its
    /// pointee's size and records them in the shader's [`RayState`].
    pub(super) fn ray_arguments(&mut self, d: &Declared) -> R<()> {
        let stage = self.b.shader().stage;
        let want = parameters(stage);
        let body = self.body;
        let args = &body.args;
        if args.len() != want.len() {
            return Err(self.invalid(format!(
                "an entry function of the {stage} stage with {} parameters (the stage takes {}: {})",
                args.len(),
                want.len(),
                if want.is_empty() {
                    "none".to_owned()
                } else {
                    want.join(", ")
                }
            )));
        }
        let mut state = RayState {
            payload: None,
            attributes: None,
        };
        for (&arg, &what) in args.iter().zip(want) {
            let ty = self.ty(arg)?;
            let pointee = match self.m.ty(ty) {
                Some(Type::Pointer {
                    pointee,
                    address_space: 0,
                }) => *pointee,
                _ => {
                    return Err(self.invalid(format!(
                        "the {what} parameter of an entry of the {stage} stage is not a pointer"
                    )));
                }
            };
            let (bytes, _) = self.inv(self.dl.size_align(self.m, pointee))?;
            let (limit, declared) = if what == "attributes" {
                (MAX_RAY_ATTRIBUTE_BYTES, d.attributes)
            } else {
                (MAX_RAY_PAYLOAD_BYTES, d.payload)
            };
            let bytes = u32::try_from(bytes)
                .ok()
                .filter(|b| *b <= limit)
                .ok_or_else(|| {
                    self.unsupported(format!("a {what} of {bytes} bytes (at most {limit})"))
                })?;
            if let Some(n) = declared
                && n != bytes
            {
                return Err(self.invalid(format!(
                    "the {what} is {bytes} bytes by the data layout but the entry declares {n}"
                )));
            }
            let x = self.new_local(u64::from(bytes), what.to_owned())?;
            self.roots.insert(arg, Root::Local(x));
            self.vals.insert(
                arg,
                Val::Ptr(Ptr {
                    root: Root::Local(x),
                    reg: None,
                    off: 0,
                }),
            );
            if what == "attributes" {
                state.attributes = Some((x, bytes));
            } else {
                state.payload = Some((x, bytes));
            }
        }
        self.b.shader_mut().ray = Some(state);
        Ok(())
    }

    /// The per-lane array, variable and constant offset, and size of the memory a
    /// pointer operand of a DXR call names (the pointee's size by the data layout).
    pub(super) fn ray_memory(&mut self, c: &DxOpCall<'m>, i: usize) -> R<(LocalId, Reg, u32, u32)> {
        let v: ValueId = self.a(c, i)?;
        let p = self.ptr_of(v)?;
        let Root::Local(x) = p.root else {
            return Err(self.unsupported(format!(
                "{} with memory that is not a local variable or parameter",
                c.name()
            )));
        };
        let ty = self.ty(v)?;
        let pointee = match self.m.ty(ty) {
            Some(Type::Pointer { pointee, .. }) => *pointee,
            _ => return Err(self.invalid(format!("operand {i} of {} is not a pointer", c.name()))),
        };
        let (bytes, _) = self.inv(self.dl.size_align(self.m, pointee))?;
        let bytes = u32::try_from(bytes)
            .ok()
            .filter(|b| *b <= MAX_RAY_PAYLOAD_BYTES)
            .ok_or_else(|| {
                self.unsupported(format!(
                    "{} of {bytes} bytes (at most {MAX_RAY_PAYLOAD_BYTES})",
                    c.name()
                ))
            })?;
        let addr = p.reg.unwrap_or_else(|| self.b.konst(0));
        Ok((x, addr, p.off, bytes))
    }

    /// The operands `TraceRay` and `HitObject_TraceRay` share: the acceleration
    /// structure (refused through any other kind of resource), the ray's arguments, and
    /// the payload's memory (`ray_memory`).
    pub(super) fn trace_operands(
        &mut self,
        c: &DxOpCall<'m>,
    ) -> R<(Reg, [Reg; TRACE_RAY_ARGS], RayMemory)> {
        let kind = self.hkind(c, 0)?.kind;
        if kind != ResourceKind::AccelerationStructure {
            return Err(self.invalid(format!(
                "{} through a {} (it traces through an acceleration structure)",
                c.name(),
                kind.job_name()
            )));
        }
        let accel = self.ar(c, 0)?;
        let mut args = [Reg::NONE; TRACE_RAY_ARGS];
        for (k, r) in args.iter_mut().enumerate() {
            *r = self.ar(c, 1 + k)?;
        }
        let memory = self.ray_memory(c, 1 + TRACE_RAY_ARGS)?;
        Ok((accel, args, memory))
    }

    /// Lowers one DXR dx.op.
    pub(super) fn ray_op(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        use RaySystemValue as V;
        let op = c.op();
        let value = match op {
            DxOp::TraceRay => {
                let (accel, args, (payload, addr, offset, bytes)) = self.trace_operands(c)?;
                self.emit(Inst::RayTrace {
                    accel,
                    args: Box::new(args),
                    payload,
                    addr,
                    offset,
                    bytes,
                });
                return Ok(());
            }
            DxOp::CallShader => {
                let index = self.ar(c, 0)?;
                let (param, addr, offset, bytes) = self.ray_memory(c, 1)?;
                self.emit(Inst::RayCall {
                    index,
                    param,
                    addr,
                    offset,
                    bytes,
                });
                return Ok(());
            }
            DxOp::ReportHit => {
                let t = self.ar(c, 0)?;
                let kind = self.ar(c, 1)?;
                let (attrs, addr, offset, bytes) = self.ray_memory(c, 2)?;
                if bytes > MAX_RAY_ATTRIBUTE_BYTES {
                    return Err(self.invalid(format!(
                        "ReportHit with {bytes} bytes of attributes (D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES is {MAX_RAY_ATTRIBUTE_BYTES})"
                    )));
                }
                let d = self.op2(|dst| Inst::RayReportHit {
                    dst,
                    t,
                    kind,
                    attrs,
                    addr,
                    offset,
                    bytes,
                });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::IgnoreHit | DxOp::AcceptHitAndEndSearch => {
                let op = if op == DxOp::IgnoreHit {
                    RayHitOp::Ignore
                } else {
                    RayHitOp::AcceptAndEnd
                };
                self.emit(Inst::RayHitEnd { op });
                return Ok(());
            }
            DxOp::DispatchRaysIndex => V::DispatchRaysIndex,
            DxOp::DispatchRaysDimensions => V::DispatchRaysDimensions,
            DxOp::WorldRayOrigin => V::WorldRayOrigin,
            DxOp::WorldRayDirection => V::WorldRayDirection,
            DxOp::ObjectRayOrigin => V::ObjectRayOrigin,
            DxOp::ObjectRayDirection => V::ObjectRayDirection,
            DxOp::ObjectToWorld => V::ObjectToWorld,
            DxOp::WorldToObject => V::WorldToObject,
            DxOp::RayTMin => V::RayTMin,
            DxOp::RayTCurrent => V::RayTCurrent,
            DxOp::RayFlags => V::RayFlags,
            DxOp::InstanceIndex => V::InstanceIndex,
            DxOp::InstanceID => V::InstanceId,
            DxOp::PrimitiveIndex => V::PrimitiveIndex,
            DxOp::GeometryIndex => V::GeometryIndex,
            DxOp::HitKind => V::HitKind,
            _ => return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode()))),
        };
        let stage = self.b.shader().stage;
        if !value.available_in(stage) {
            return Err(self.invalid(format!("{} in a program of the {stage} stage", c.name())));
        }
        // A vector's component, or a 3×4 matrix's row and column, as constants.
        let index = self.component_index(c, 0, value.components())?;
        let d = self.op2(|dst| Inst::RayGet { value, index, dst });
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }
}
