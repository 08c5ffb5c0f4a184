//! Shader execution reordering (SM 6.9, dx.ops 262–289): `HitObject_TraceRay`,
//! `_FromRayQuery`, `_FromRayQueryWithAttrs`, `_MakeMiss`, `_MakeNop` and
//! `_SetShaderTableIndex` become `ho_trace`, `ho_from_query`, `ho_from_query_attrs`,
//! `ho_miss`, `ho_nop` and `ho_set_index`, each with a slot of its own (a hit object is
//! the value that names its slot, as a ray query is); `_Invoke` an `ho_invoke`; the
//! accessors (`hitObject_StateScalar`, `_StateVector`, `_StateMatrix`) an `ho_get`;
//! `_LoadLocalRootTableConstant` an `ho_load_local`; `_Attributes` an `ho_attributes`. `MaybeReorderThread` becomes nothing: reordering
//! changes no result (HLSL proposal 0027, "Reorder points"), so dxlane keeps lane order.
//!
//! Owns: the operand orders of those calls (DXIL.rst, as dxc emits them: the hit object
//! first, then a vector's component or a matrix's row and column as constants;
//! `HitObject_TraceRay` as `TraceRay`; `HitObject_MakeMiss` the ray flags, the miss
//! index and the `RayDesc`), and the stages where they may appear: a hit object in ray
//! generation, closest-hit and miss programs, `MaybeReorderThread` in ray generation
//! only (HLSL proposal 0027, "Valid Shader Stages", "MaybeReorderThread HLSL
//! Additions"). Does not own: what the instructions do (`exec::hit_object`,
//! `pipeline::rays`).

use super::func::{FnLower, R, Val};
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::ValueId;
use crate::ir::{
    HitObjectValue, Inst, MAKE_MISS_ARGS, MAX_HIT_OBJECT_SLOTS, MAX_RAY_ATTRIBUTE_BYTES, Reg, Stage,
};

impl<'m> FnLower<'m> {
    /// The next hit-object slot: one per creation site.
    fn hit_object_slot(&self) -> R<u32> {
        let n = self.b.count_emitted(|i| {
            matches!(
                i,
                Inst::HitObjectTrace { .. }
                    | Inst::HitObjectMiss { .. }
                    | Inst::HitObjectNop { .. }
                    | Inst::HitObjectFromQuery { .. }
                    | Inst::HitObjectFromQueryAttrs { .. }
                    | Inst::HitObjectSetIndex { .. }
            )
        });
        u32::try_from(n)
            .ok()
            .filter(|s| *s < MAX_HIT_OBJECT_SLOTS)
            .ok_or_else(|| {
                self.unsupported(format!(
                    "more than {MAX_HIT_OBJECT_SLOTS} sites that make a HitObject"
                ))
            })
    }

    /// Lowers one SER dx.op.
    pub(super) fn hit_object(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        use HitObjectValue as V;
        let op = c.op();
        let stage = self.b.shader().stage;
        // HLSL proposal 0027: MaybeReorderThread in ray generation programs only; the
        // HitObject type and its functions in ray generation, closest-hit and miss.
        let allowed = if op == DxOp::MaybeReorderThread {
            stage == Stage::RayGeneration
        } else {
            matches!(
                stage,
                Stage::RayGeneration | Stage::ClosestHit | Stage::Miss
            )
        };
        if !allowed {
            let only = if op == DxOp::MaybeReorderThread {
                "ray generation programs only"
            } else {
                "ray generation, closest-hit and miss programs only"
            };
            return Err(self.invalid(format!(
                "{} in a program of the {} stage (Shader Model 6.9 allows it in {only})",
                c.name(),
                stage.words()
            )));
        }
        let value = match op {
            DxOp::HitObject_TraceRay => {
                let (accel, args, (payload, addr, offset, bytes)) = self.trace_operands(c)?;
                let slot = self.hit_object_slot()?;
                let d = self.op2(|dst| Inst::HitObjectTrace {
                    slot,
                    dst,
                    accel,
                    args: Box::new(args),
                    payload,
                    addr,
                    offset,
                    bytes,
                });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_MakeMiss => {
                let mut args = [Reg::NONE; MAKE_MISS_ARGS];
                for (k, r) in args.iter_mut().enumerate() {
                    *r = self.ar(c, k)?;
                }
                let slot = self.hit_object_slot()?;
                let d = self.op2(|dst| Inst::HitObjectMiss {
                    slot,
                    dst,
                    args: Box::new(args),
                });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_MakeNop => {
                let slot = self.hit_object_slot()?;
                let d = self.op2(|dst| Inst::HitObjectNop { slot, dst });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_FromRayQuery => {
                let query = self.ar(c, 0)?;
                let slot = self.hit_object_slot()?;
                let d = self.op2(|dst| Inst::HitObjectFromQuery { slot, dst, query });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_FromRayQueryWithAttrs => {
                let query = self.ar(c, 0)?;
                let kind = self.ar(c, 1)?;
                let (attrs, addr, offset, bytes) = self.ray_memory(c, 2)?;
                self.attribute_size(c, bytes)?;
                let slot = self.hit_object_slot()?;
                let d = self.op2(|dst| Inst::HitObjectFromQueryAttrs {
                    slot,
                    dst,
                    query,
                    kind,
                    attrs,
                    addr,
                    offset,
                    bytes,
                });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_SetShaderTableIndex => {
                let hit = self.ar(c, 0)?;
                let index = self.ar(c, 1)?;
                let slot = self.hit_object_slot()?;
                let d = self.op2(|dst| Inst::HitObjectSetIndex {
                    slot,
                    dst,
                    hit,
                    index,
                });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_Invoke => {
                let hit = self.ar(c, 0)?;
                let (payload, addr, offset, bytes) = self.ray_memory(c, 1)?;
                self.emit(Inst::HitObjectInvoke {
                    hit,
                    payload,
                    addr,
                    offset,
                    bytes,
                });
                return Ok(());
            }
            DxOp::HitObject_LoadLocalRootTableConstant => {
                let hit = self.ar(c, 0)?;
                let offset = self.ar(c, 1)?;
                let d = self.op2(|dst| Inst::HitObjectLoadLocal { dst, hit, offset });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::HitObject_Attributes => {
                let hit = self.ar(c, 0)?;
                let (attrs, addr, offset, bytes) = self.ray_memory(c, 1)?;
                self.attribute_size(c, bytes)?;
                self.emit(Inst::HitObjectAttributes {
                    hit,
                    attrs,
                    addr,
                    offset,
                    bytes,
                });
                return Ok(());
            }
            DxOp::MaybeReorderThread => {
                // Reordering changes no result: the operands are read (so a value the
                // lowering cannot express is still refused) and nothing is emitted.
                self.a(c, 0)?;
                self.a(c, 1)?;
                self.a(c, 2)?;
                return Ok(());
            }
            DxOp::HitObject_IsMiss => V::IsMiss,
            DxOp::HitObject_IsHit => V::IsHit,
            DxOp::HitObject_IsNop => V::IsNop,
            DxOp::HitObject_RayFlags => V::RayFlags,
            DxOp::HitObject_RayTMin => V::RayTMin,
            DxOp::HitObject_RayTCurrent => V::RayTCurrent,
            DxOp::HitObject_WorldRayOrigin => V::WorldRayOrigin,
            DxOp::HitObject_WorldRayDirection => V::WorldRayDirection,
            DxOp::HitObject_ObjectRayOrigin => V::ObjectRayOrigin,
            DxOp::HitObject_ObjectRayDirection => V::ObjectRayDirection,
            DxOp::HitObject_ObjectToWorld3x4 => V::ObjectToWorld,
            DxOp::HitObject_WorldToObject3x4 => V::WorldToObject,
            DxOp::HitObject_GeometryIndex => V::GeometryIndex,
            DxOp::HitObject_InstanceIndex => V::InstanceIndex,
            DxOp::HitObject_InstanceID => V::InstanceId,
            DxOp::HitObject_PrimitiveIndex => V::PrimitiveIndex,
            DxOp::HitObject_HitKind => V::HitKind,
            DxOp::HitObject_ShaderTableIndex => V::ShaderTableIndex,
            _ => return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode()))),
        };
        // A vector's component, or a 3×4 matrix's row and column, as constants.
        let index = self.component_index(c, 1, value.components())?;
        let hit = self.ar(c, 0)?;
        let d = self.op2(|dst| Inst::HitObjectGet {
            value,
            index,
            dst,
            hit,
        });
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }

    /// Attributes are at most `D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES`.
    fn attribute_size(&self, c: &DxOpCall<'m>, bytes: u32) -> R<()> {
        if bytes > MAX_RAY_ATTRIBUTE_BYTES {
            return Err(self.invalid(format!(
                "{} with {bytes} bytes of attributes (D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES is {MAX_RAY_ATTRIBUTE_BYTES})",
                c.name()
            )));
        }
        Ok(())
    }
}
