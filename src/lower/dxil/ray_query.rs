//! Inline ray queries (SM 6.5, dx.ops 178–215 but 213): `AllocateRayQuery` becomes an
//! `rq_alloc` with its own slot, `TraceRayInline` an `rq_trace`, `Proceed` an
//! `rq_proceed`, `Abort` and the two commits an `rq_control`, and every state accessor
//! (`rayQuery_StateScalar`, `_StateVector`, `_StateMatrix`) an `rq_get`.
//!
//! Owns: the operand orders of those calls (as dxc emits them: the query value first,
//! then for `TraceRayInline` the structure's handle, flags, mask, origin, `TMin`,
//! direction, `TMax`; a vector's component or a 3×4 matrix's row and column as
//! constants) and the check that `TraceRayInline`'s handle names an acceleration
//! structure. Does not own: the queries' behaviour (`exec::ray_query`).

use super::func::{FnLower, R, Val};
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::ValueId;
use crate::ir::{Inst, MAX_RAY_QUERY_SLOTS, RayQueryOp, RayQueryValue, Reg, ResourceKind};

impl<'m> FnLower<'m> {
    /// Lowers one ray-query dx.op.
    pub(super) fn ray_query(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        use RayQueryValue as V;
        let op = c.op();
        let value = match op {
            DxOp::AllocateRayQuery | DxOp::AllocateRayQuery2 => {
                // DXIL.rst DECL.ALLOCATERAYQUERYFLAGSARECONST and
                // DECL.ALLOCATERAYQUERY2FLAGSARECONST: the template flags are a constant.
                let flags = self.ai(c, 0)? as u32;
                if op == DxOp::AllocateRayQuery2 {
                    // `RayQuery<RayFlags, RayQueryFlags>` (SM 6.9): the one query flag,
                    // RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS (1), must be set when the
                    // template flags force OMM 2-state (RAY_FLAG_FORCE_OMM_2_STATE,
                    // 0x400; DXC's validator). Opacity micromaps are not built, so
                    // neither changes a result (docs/raytracing.md).
                    let query_flags = self.ai(c, 1)? as u32;
                    if flags & 0x400 != 0 && query_flags & 1 == 0 {
                        return Err(self.invalid(format!(
                            "{} with RAY_FLAG_FORCE_OMM_2_STATE in its ray flags {flags:#x} but not RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS in its query flags {query_flags:#x}",
                            c.name()
                        )));
                    }
                }
                let slot = self
                    .b
                    .count_emitted(|i| matches!(i, Inst::RayQueryAlloc { .. }));
                let slot = u32::try_from(slot)
                    .ok()
                    .filter(|s| *s < MAX_RAY_QUERY_SLOTS)
                    .ok_or_else(|| {
                        self.unsupported(format!(
                            "more than {MAX_RAY_QUERY_SLOTS} AllocateRayQuery calls"
                        ))
                    })?;
                let d = self.op2(|dst| Inst::RayQueryAlloc { slot, flags, dst });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::RayQuery_TraceRayInline => {
                let kind = self.hkind(c, 1)?.kind;
                if kind != ResourceKind::AccelerationStructure {
                    return Err(self.invalid(format!(
                        "{} through a {} (it traces through an acceleration structure)",
                        c.name(),
                        kind.job_name()
                    )));
                }
                let query = self.ar(c, 0)?;
                let accel = self.ar(c, 1)?;
                let flags = self.ar(c, 2)?;
                let mask = self.ar(c, 3)?;
                let mut ray = [Reg::NONE; 8];
                for (k, r) in ray.iter_mut().enumerate() {
                    *r = self.ar(c, 4 + k)?;
                }
                self.emit(Inst::RayQueryTrace {
                    query,
                    accel,
                    flags,
                    mask,
                    ray: Box::new(ray),
                });
                return Ok(());
            }
            DxOp::RayQuery_Proceed => {
                let query = self.ar(c, 0)?;
                let d = self.op2(|dst| Inst::RayQueryProceed { dst, query });
                self.define(res, Val::Regs(vec![d]));
                return Ok(());
            }
            DxOp::RayQuery_Abort
            | DxOp::RayQuery_CommitNonOpaqueTriangleHit
            | DxOp::RayQuery_CommitProceduralPrimitiveHit => {
                let query = self.ar(c, 0)?;
                let (op, t) = match op {
                    DxOp::RayQuery_Abort => (RayQueryOp::Abort, Reg::NONE),
                    DxOp::RayQuery_CommitNonOpaqueTriangleHit => {
                        (RayQueryOp::CommitTriangle, Reg::NONE)
                    }
                    _ => (RayQueryOp::CommitProcedural, self.ar(c, 1)?),
                };
                self.emit(Inst::RayQueryControl { op, query, t });
                return Ok(());
            }
            DxOp::RayQuery_CommittedStatus => V::CommittedStatus,
            DxOp::RayQuery_CandidateType => V::CandidateType,
            DxOp::RayQuery_CandidateObjectToWorld3x4 => V::CandidateObjectToWorld,
            DxOp::RayQuery_CandidateWorldToObject3x4 => V::CandidateWorldToObject,
            DxOp::RayQuery_CommittedObjectToWorld3x4 => V::CommittedObjectToWorld,
            DxOp::RayQuery_CommittedWorldToObject3x4 => V::CommittedWorldToObject,
            DxOp::RayQuery_CandidateProceduralPrimitiveNonOpaque => V::CandidateProceduralNonOpaque,
            DxOp::RayQuery_CandidateTriangleFrontFace => V::CandidateFrontFace,
            DxOp::RayQuery_CommittedTriangleFrontFace => V::CommittedFrontFace,
            DxOp::RayQuery_CandidateTriangleBarycentrics => V::CandidateBarycentrics,
            DxOp::RayQuery_CommittedTriangleBarycentrics => V::CommittedBarycentrics,
            DxOp::RayQuery_RayFlags => V::RayFlags,
            DxOp::RayQuery_WorldRayOrigin => V::WorldRayOrigin,
            DxOp::RayQuery_WorldRayDirection => V::WorldRayDirection,
            DxOp::RayQuery_RayTMin => V::RayTMin,
            DxOp::RayQuery_CandidateTriangleRayT => V::CandidateRayT,
            DxOp::RayQuery_CommittedRayT => V::CommittedRayT,
            DxOp::RayQuery_CandidateInstanceIndex => V::CandidateInstanceIndex,
            DxOp::RayQuery_CandidateInstanceID => V::CandidateInstanceId,
            DxOp::RayQuery_CandidateGeometryIndex => V::CandidateGeometryIndex,
            DxOp::RayQuery_CandidatePrimitiveIndex => V::CandidatePrimitiveIndex,
            DxOp::RayQuery_CandidateObjectRayOrigin => V::CandidateObjectRayOrigin,
            DxOp::RayQuery_CandidateObjectRayDirection => V::CandidateObjectRayDirection,
            DxOp::RayQuery_CommittedInstanceIndex => V::CommittedInstanceIndex,
            DxOp::RayQuery_CommittedInstanceID => V::CommittedInstanceId,
            DxOp::RayQuery_CommittedGeometryIndex => V::CommittedGeometryIndex,
            DxOp::RayQuery_CommittedPrimitiveIndex => V::CommittedPrimitiveIndex,
            DxOp::RayQuery_CommittedObjectRayOrigin => V::CommittedObjectRayOrigin,
            DxOp::RayQuery_CommittedObjectRayDirection => V::CommittedObjectRayDirection,
            DxOp::RayQuery_CandidateInstanceContributionToHitGroupIndex => V::CandidateContribution,
            DxOp::RayQuery_CommittedInstanceContributionToHitGroupIndex => V::CommittedContribution,
            _ => return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode()))),
        };
        // A vector's component, or a 3×4 matrix's row and column, as constants.
        let index = self.component_index(c, 1, value.components())?;
        let query = self.ar(c, 0)?;
        let d = self.op2(|dst| Inst::RayQueryGet {
            value,
            index,
            dst,
            query,
        });
        self.define(res, Val::Regs(vec![d]));
        Ok(())
    }
}

impl<'m> FnLower<'m> {
    /// The constant index of a ray value's element, from the call's arguments starting at
    /// `first`: 0 for a scalar, the component of a vector, or a 3×4 matrix's row and
    /// column (row-major, `row * 4 + col`). Shared by inline ray queries and the DXR
    /// system values, whose calls differ only in where these arguments start.
    pub(super) fn component_index(&self, c: &DxOpCall<'m>, first: usize, components: u8) -> R<u8> {
        Ok(match components {
            1 => 0,
            12 => {
                let row = self.ai(c, first)?;
                let col = self.ai(c, first + 1)?;
                if !(0..3).contains(&row) || !(0..4).contains(&col) {
                    return Err(self.invalid(format!(
                        "{} of row {row}, column {col} (a 3×4 matrix)",
                        c.name()
                    )));
                }
                (row * 4 + col) as u8
            }
            n => {
                let k = self.ai(c, first)?;
                if !(0..i64::from(n)).contains(&k) {
                    return Err(self.invalid(format!("{} of component {k} (it has {n})", c.name())));
                }
                k as u8
            }
        })
    }
}
