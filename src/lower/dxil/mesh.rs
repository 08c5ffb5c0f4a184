//! Mesh and amplification programs: their state from the entry point's metadata, and
//! the `dx.op` operations only they use (`SetMeshOutputCounts`, `EmitIndices`,
//! `StoreVertexOutput`, `StorePrimitiveOutput`, `GetMeshPayload`, `DispatchMesh`).
//!
//! Owns: reading DXIL's mesh state (tag 9: thread group, max vertices, max primitives,
//! output topology, payload bytes) and amplification state (tag 10: thread group,
//! payload bytes) into [`MeshState`], with the mesh shader spec's limits; and lowering
//! the operations to the IR's mesh instructions. Does not own: the signatures' layout
//! (`stage`, which lays the primitive signature out as it does the others) or what the
//! instructions do (`exec`, `pipeline::ms`).
//!
//! The payload is memory: a mesh program's `GetMeshPayload` gives a pointer to the
//! first `payload_bytes` bytes of group shared memory (which the lowering reserves
//! before any `groupshared` global and the pipeline fills before the group runs); an
//! amplification program's `DispatchMesh` names a group shared global, whose byte offset
//! the instruction carries. Both sides use the module's data layout, so the payload's
//! members are where both programs expect them.

use super::func::{FnLower, Ptr, R, Root, Val};
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::{Instruction, ValueId};
use crate::dxil::meta::{EntryPoint, Property};
use crate::ir::io::{MAX_MESH_PAYLOAD_BYTES, MAX_MESH_PRIMITIVES, MAX_MESH_VERTICES};
use crate::ir::{Inst, MeshState, MeshTopology, Reg, Stage};
use crate::lower::LowerError;

/// The most threads of a mesh or amplification group (mesh shader spec, "numthreads":
/// `X * Y * Z <= 128`).
pub const MAX_MESH_THREADS: u64 = 128;

/// The mesh or amplification state of an entry point, checked against the spec's
/// limits (the stage's words per primitive are filled in by the signature layout).
pub fn state(stage: Stage, e: &EntryPoint, location: &str) -> Result<MeshState, LowerError> {
    let bad = |message: String| LowerError::Invalid {
        message,
        location: location.to_owned(),
    };
    let values = e.properties.iter().find_map(|(_, p)| match (stage, p) {
        (Stage::Mesh, Property::Mesh { values, .. })
        | (Stage::Amplification, Property::Amplification { values, .. }) => Some(values),
        _ => None,
    });
    let Some(values) = values else {
        return Err(bad(format!(
            "a {stage} program without its state (entry-point tag {})",
            if stage == Stage::Mesh { 9 } else { 10 }
        )));
    };
    let at = |i: usize| -> Result<u32, LowerError> {
        let v = values.get(i).copied().unwrap_or(0);
        u32::try_from(v).map_err(|_| bad(format!("{stage} state value {i} is {v}")))
    };
    let threads: u64 = e
        .num_threads()
        .unwrap_or([0; 3])
        .iter()
        .map(|&n| u64::from(n))
        .product();
    if !(1..=MAX_MESH_THREADS).contains(&threads) {
        return Err(bad(format!(
            "[numthreads] of {threads} threads (a {stage} group has 1 to {MAX_MESH_THREADS}: mesh shader spec, \"numthreads\")"
        )));
    }
    let m = if stage == Stage::Mesh {
        let topology = match at(2)? {
            1 => MeshTopology::Line,
            2 => MeshTopology::Triangle,
            t => {
                return Err(LowerError::Unsupported {
                    what: format!(
                        "mesh output topology {t} (the mesh shader spec has line (1) and triangle (2))"
                    ),
                    location: location.to_owned(),
                });
            }
        };
        MeshState {
            topology,
            max_vertices: at(0)?,
            max_primitives: at(1)?,
            payload_bytes: at(3)?,
            primitive_words: 0,
        }
    } else {
        MeshState {
            topology: MeshTopology::Triangle,
            max_vertices: 0,
            max_primitives: 0,
            payload_bytes: at(0)?,
            primitive_words: 0,
        }
    };
    if m.max_vertices > MAX_MESH_VERTICES {
        return Err(bad(format!(
            "{} output vertices (at most {MAX_MESH_VERTICES}: mesh shader spec, \"Mesh shader max output verts\")",
            m.max_vertices
        )));
    }
    if m.max_primitives > MAX_MESH_PRIMITIVES {
        return Err(bad(format!(
            "{} output primitives (at most {MAX_MESH_PRIMITIVES}: mesh shader spec, \"Mesh shader max output prims\")",
            m.max_primitives
        )));
    }
    if m.payload_bytes > MAX_MESH_PAYLOAD_BYTES {
        return Err(bad(format!(
            "a payload of {} bytes (at most {MAX_MESH_PAYLOAD_BYTES}: mesh shader spec, \"Amplification shader and Mesh shader\")",
            m.payload_bytes
        )));
    }
    Ok(m)
}

impl<'m> FnLower<'m> {
    /// Lowers a mesh or amplification `dx.op` (see the module doc).
    pub fn mesh_op(
        &mut self,
        c: &DxOpCall<'m>,
        _inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let stage = self.io.stage;
        let need = |s: Stage| -> R<()> {
            if stage == s {
                Ok(())
            } else {
                Err(self.invalid(format!("dx.op {} in a {stage} shader", c.name())))
            }
        };
        match c.op() {
            DxOp::SetMeshOutputCounts => {
                need(Stage::Mesh)?;
                let vertices = self.mesh_arg(c, 0)?;
                let primitives = self.mesh_arg(c, 1)?;
                self.emit(Inst::MeshCounts {
                    vertices,
                    primitives,
                });
            }
            DxOp::EmitIndices => {
                need(Stage::Mesh)?;
                let prim = self.mesh_arg(c, 0)?;
                let lines = self
                    .b
                    .shader()
                    .mesh
                    .is_some_and(|m| m.topology == MeshTopology::Line);
                let mut v = [Reg::NONE; 3];
                for (k, x) in v.iter_mut().enumerate() {
                    if !(lines && k == 2) {
                        *x = self.mesh_arg(c, 1 + k)?;
                    }
                }
                self.emit(Inst::MeshIndices { prim, v });
            }
            DxOp::StoreVertexOutput | DxOp::StorePrimitiveOutput => {
                need(Stage::Mesh)?;
                let vertex = c.op() == DxOp::StoreVertexOutput;
                let (slot, rows, component) = self.mesh_place(c, vertex)?;
                let vid = c
                    .arg(3)
                    .ok_or_else(|| self.invalid(format!("{} has no value", c.name())))?;
                let l = self.leaf(self.ty(vid)?)?;
                let v = self.reg(vid)?;
                let src = self.widen_word(c, l, v, component)?;
                let rv = c
                    .arg(1)
                    .ok_or_else(|| self.invalid(format!("{} has no row", c.name())))?;
                let (slot, row, rows) = match self.const_row(c, rv, rows)? {
                    Some(r) => (slot + 4 * r, Reg::NONE, 1),
                    None => (slot, self.reg(rv)?, rows),
                };
                let index = self.mesh_arg(c, 4)?;
                self.emit(if vertex {
                    Inst::MeshVertexOut {
                        slot,
                        row,
                        rows,
                        vertex: index,
                        src,
                    }
                } else {
                    Inst::MeshPrimOut {
                        slot,
                        row,
                        rows,
                        prim: index,
                        src,
                    }
                });
            }
            DxOp::GetMeshPayload => {
                need(Stage::Mesh)?;
                self.define(
                    res,
                    Val::Ptr(Ptr {
                        root: Root::Shared,
                        reg: None,
                        off: 0,
                    }),
                );
            }
            DxOp::DispatchMesh => {
                need(Stage::Amplification)?;
                let groups = [
                    self.mesh_arg(c, 0)?,
                    self.mesh_arg(c, 1)?,
                    self.mesh_arg(c, 2)?,
                ];
                let pv = c
                    .arg(3)
                    .ok_or_else(|| self.invalid("DispatchMesh has no payload"))?;
                let p = self.ptr_of(pv)?;
                let payload = match p {
                    Ptr {
                        root: Root::Shared,
                        reg: None,
                        off,
                    } => off,
                    _ => {
                        return Err(self.unsupported(
                            "a DispatchMesh payload that is not a group shared variable (the spec's \"DispatchMesh intrinsic\" takes a groupshared payload)",
                        ));
                    }
                };
                self.emit(Inst::DispatchMesh { groups, payload });
            }
            _ => {
                return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode())));
            }
        }
        Ok(())
    }

    /// The register of argument `i` (an `undef` reads 0).
    fn mesh_arg(&mut self, c: &DxOpCall<'m>, i: usize) -> R<Reg> {
        let v = c
            .arg(i)
            .ok_or_else(|| self.invalid(format!("{} has no operand {i}", c.name())))?;
        self.reg(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tag: u32, threads: [u32; 3], values: Vec<i64>) -> EntryPoint {
        let p = if tag == 9 {
            Property::Mesh {
                num_threads: threads,
                values,
            }
        } else {
            Property::Amplification {
                num_threads: threads,
                values,
            }
        };
        EntryPoint {
            function: None,
            function_name: None,
            name: "main".into(),
            signatures: None,
            resources: None,
            properties: vec![(tag, p)],
            fp32_denorm_mode: None,
        }
    }

    /// DXIL's mesh state (tag 9) is max vertices, max primitives, topology, payload;
    /// the amplification state (tag 10) the payload.
    #[test]
    fn states_are_read() {
        let m = state(Stage::Mesh, &entry(9, [32, 1, 1], vec![4, 2, 2, 16]), "e").unwrap();
        assert_eq!(
            (
                m.max_vertices,
                m.max_primitives,
                m.topology,
                m.payload_bytes
            ),
            (4, 2, MeshTopology::Triangle, 16)
        );
        let m = state(Stage::Mesh, &entry(9, [1, 1, 1], vec![2, 1, 1, 0]), "e").unwrap();
        assert_eq!(m.topology, MeshTopology::Line);
        let a = state(Stage::Amplification, &entry(10, [8, 1, 1], vec![20]), "e").unwrap();
        assert_eq!(a.payload_bytes, 20);
    }

    /// The mesh shader spec's limits ("Amplification shader and Mesh shader", "numthreads",
    /// "outputtopology"), each at the edge and one past it.
    #[test]
    fn limits_are_enforced_at_the_edge() {
        let ok = |t: [u32; 3], v: Vec<i64>| state(Stage::Mesh, &entry(9, t, v), "e");
        assert!(ok([128, 1, 1], vec![256, 256, 2, 16384]).is_ok());
        for (t, v, what) in [
            ([129, 1, 1], vec![4, 2, 2, 0], "129 threads"),
            ([8, 4, 5], vec![4, 2, 2, 0], "160 threads"),
            ([32, 1, 1], vec![257, 2, 2, 0], "257 output vertices"),
            ([32, 1, 1], vec![4, 257, 2, 0], "257 output primitives"),
            ([32, 1, 1], vec![4, 2, 2, 16385], "payload of 16385 bytes"),
            ([32, 1, 1], vec![4, 2, 0, 0], "topology 0"),
            ([32, 1, 1], vec![4, 2, 3, 0], "topology 3"),
        ] {
            let e = ok(t, v).unwrap_err().to_string();
            assert!(e.contains(what), "{what}: {e}");
        }
        let e = state(
            Stage::Amplification,
            &entry(10, [8, 1, 1], vec![16385]),
            "e",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("payload of 16385 bytes"), "{e}");
        let e = state(Stage::Mesh, &entry(10, [8, 1, 1], vec![0]), "e")
            .unwrap_err()
            .to_string();
        assert!(e.contains("without its state"), "{e}");
    }
}
