//! Geometry programs (`gs_6_x`): their state from the entry point's metadata, and the
//! `dx.op` operations only they use (`EmitStream`, `CutStream`, `EmitThenCutStream`,
//! `GSInstanceID`).
//!
//! Owns: reading DXIL's geometry state (entry-point tag 1; DXIL.rst "Geometry Shader")
//! into the IR's [`GeometryState`] with D3D's limits, and lowering the stream
//! operations to the IR's `emit` and `cut`. Does not own: the signatures' layout
//! (`stage::Io::lay_out_geometry`, which also reads `LoadInput`'s vertex operand) or
//! what `emit` and `cut` do (`exec`, `pipeline::gs`).
//!
//! # The state's operands
//!
//! DXIL.rst's table lists the input primitive, the max vertex count and one topology
//! per stream; dxc writes five integers (`DxilMDHelper::EmitDxilGSState`), and that is
//! what is read: input primitive, max vertex count, active stream mask, output topology
//! (one for every stream: D3D11.3 §13.2 requires several streams to be point lists), and
//! the instance count. The enumerations are DXIL's: `InputPrimitive` (1 point, 2 line,
//! 3 triangle, 6 line with adjacency, 7 triangle with adjacency) and `PrimitiveTopology`
//! (1 point list, 3 line strip, 5 triangle strip — the three a geometry program may
//! emit).
//!
//! # Limits (refused by name, at the entry point)
//!
//! - max vertex count at most 1024 (`D3D11_GS_MAX_OUTPUT_VERTEX_COUNT_ACROSS_INSTANCES`),
//!   and with the instances at most 1024 vertices across them (D3D11.3 §13.6);
//! - instance count 1 to 32 (`D3D11_GS_MAX_INSTANCE_COUNT`);
//! - a stream mask within streams 0 … 3, and an `EmitStream` or `CutStream` only on an
//!   active stream with a constant stream number.

use super::func::{FnLower, R, Val};
use crate::container::psv0::Psv0;
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::ValueId;
use crate::dxil::meta::{EntryPoint, Property};
use crate::ir::validate::{MAX_GS_INSTANCES, MAX_GS_VERTICES, MAX_STREAMS};
use crate::ir::{GeometryState, GsInput, GsOutput, Inst, SysValue};
use crate::lower::LowerError;

/// The geometry state of an entry point and its active stream mask, checked against
/// D3D's limits (`vertex_words` is filled in by the signature layout).
pub fn state(e: &EntryPoint, location: &str) -> Result<(GeometryState, u32), LowerError> {
    let bad = |message: String| LowerError::Invalid {
        message,
        location: location.to_owned(),
    };
    let Some(values) = e.properties.iter().find_map(|(_, p)| match p {
        Property::Geometry(v) => Some(v),
        _ => None,
    }) else {
        return Err(bad(
            "a geometry program without its state (entry-point tag 1)".into(),
        ));
    };
    let at = |i: usize, what: &str| -> Result<u32, LowerError> {
        let v = values
            .get(i)
            .copied()
            .ok_or_else(|| bad(format!("the geometry state has no {what} (operand {i})")))?;
        u32::try_from(v).map_err(|_| bad(format!("geometry state {what} {v}")))
    };
    let input = match at(0, "input primitive")? {
        1 => GsInput::Point,
        2 => GsInput::Line,
        3 => GsInput::Triangle,
        6 => GsInput::LineAdj,
        7 => GsInput::TriangleAdj,
        p => {
            return Err(bad(format!(
                "geometry state input primitive {p}: a geometry program reads points (1), lines (2), triangles (3), lines (6) or triangles (7) with adjacency"
            )));
        }
    };
    let max_vertices = at(1, "max vertex count")?;
    if max_vertices > MAX_GS_VERTICES {
        return Err(bad(format!(
            "geometry state max vertex count {max_vertices}: at most {MAX_GS_VERTICES}"
        )));
    }
    // dxc writes 0 when no stream is named and PSV0 then says 1: stream 0 is active.
    let mask = match at(2, "stream mask")? {
        0 => 1,
        m => m,
    };
    if mask >> MAX_STREAMS != 0 {
        return Err(bad(format!(
            "geometry state stream mask {mask:#x}: a geometry program has streams 0 to 3"
        )));
    }
    let output = match at(3, "output topology")? {
        1 => GsOutput::PointList,
        3 => GsOutput::LineStrip,
        5 => GsOutput::TriangleStrip,
        t => {
            return Err(bad(format!(
                "geometry state output topology {t}: a geometry program emits a point list (1), a line strip (3) or a triangle strip (5)"
            )));
        }
    };
    let instances = match values.get(4) {
        None => 1,
        Some(_) => at(4, "instance count")?,
    };
    if !(1..=MAX_GS_INSTANCES).contains(&instances) {
        return Err(bad(format!(
            "geometry state instance count {instances}: 1 to {MAX_GS_INSTANCES}"
        )));
    }
    if u64::from(max_vertices) * u64::from(instances) > u64::from(MAX_GS_VERTICES) {
        return Err(bad(format!(
            "geometry state max vertex count {max_vertices} × {instances} instances: at most {MAX_GS_VERTICES} vertices across the instances"
        )));
    }
    Ok((
        GeometryState {
            input,
            output,
            max_vertices,
            instances,
            vertex_words: 0,
        },
        mask,
    ))
}

/// The DXIL numbers of a geometry state's input primitive and output topology (the
/// inverse of [`state`]'s mapping).
fn dxil_numbers(g: &GeometryState) -> (u32, u32) {
    let input = match g.input {
        GsInput::Point => 1,
        GsInput::Line => 2,
        GsInput::Triangle => 3,
        GsInput::LineAdj => 6,
        GsInput::TriangleAdj => 7,
    };
    let output = match g.output {
        GsOutput::PointList => 1,
        GsOutput::LineStrip => 3,
        GsOutput::TriangleStrip => 5,
    };
    (input, output)
}

/// Checks a container's PSV0 geometry words against the metadata's state: the runtime
/// info's input primitive, output topology and stream mask (words 0, 1, 2) and the
/// 36-byte form's maximum vertex count (DXC `SetShaderProps`, the words the runtime
/// builds the pipeline from). A container whose two descriptions disagree is refused,
/// naming the field and both values, rather than run by one of them.
pub fn check_psv0(
    psv: &Psv0,
    g: &GeometryState,
    mask: u32,
    location: &str,
) -> Result<(), LowerError> {
    let w = psv.runtime_info.stage_words;
    let (input, output) = dxil_numbers(g);
    let mut pairs = vec![
        ("input primitive", input, w[0]),
        ("output topology", output, w[1]),
        ("stream mask", mask, w[2]),
    ];
    if let Some(v1) = &psv.runtime_info.v1 {
        pairs.push(("max vertex count", g.max_vertices, u32::from(v1.stage_word)));
    }
    for (what, meta, psv) in pairs {
        if meta != psv {
            return Err(LowerError::Invalid {
                message: format!("the geometry state's {what} is {meta} but PSV0's is {psv}"),
                location: location.to_owned(),
            });
        }
    }
    Ok(())
}

impl<'m> FnLower<'m> {
    /// Lowers a geometry program's stream operation or `GSInstanceID` (module doc).
    pub fn geometry_op(&mut self, c: &DxOpCall<'m>, res: Option<ValueId>) -> R<()> {
        let op = c.op();
        if self.io.stage != crate::ir::Stage::Geometry {
            return Err(self.invalid(format!("dx.op {} in a {} shader", c.name(), self.io.stage)));
        }
        match op {
            DxOp::GSInstanceID => {
                let slot = self.sys_input(SysValue::GsInstanceId, "SV_GSInstanceID")?;
                let d = self.op2(|dst| Inst::Input { dst, slot });
                self.define(res, Val::Regs(vec![d]));
            }
            _ => {
                // EmitStream / CutStream / EmitThenCutStream(streamId: a constant i8).
                let v = c
                    .arg(0)
                    .ok_or_else(|| self.invalid(format!("{} has no stream operand", c.name())))?;
                let stream = self
                    .const_int(v)
                    .and_then(|s| u32::try_from(s).ok())
                    .ok_or_else(|| {
                        self.invalid(format!("{} of a stream that is not a constant", c.name()))
                    })?;
                if stream >= MAX_STREAMS || self.io.stream_mask & (1 << stream) == 0 {
                    return Err(self.invalid(format!(
                        "{} of stream {stream}, which the geometry state's stream mask {:#x} leaves inactive",
                        c.name(),
                        self.io.stream_mask
                    )));
                }
                if matches!(op, DxOp::EmitStream | DxOp::EmitThenCutStream) {
                    self.emit(Inst::Emit { stream });
                }
                if matches!(op, DxOp::CutStream | DxOp::EmitThenCutStream) {
                    self.emit(Inst::Cut { stream });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(values: Vec<i64>) -> EntryPoint {
        EntryPoint {
            function: None,
            function_name: Some("main".into()),
            name: "main".into(),
            signatures: None,
            resources: None,
            properties: vec![(1, Property::Geometry(values))],
            fp32_denorm_mode: None,
        }
    }

    /// DXIL.rst "Geometry Shader" (tag 1), in dxc's operand order: input primitive,
    /// max vertex count, stream mask, topology, instance count.
    #[test]
    fn the_state_is_read_in_dxcs_order() {
        let (g, mask) = state(&entry(vec![3, 6, 1, 5, 2]), "here").unwrap();
        assert_eq!(g.input, GsInput::Triangle);
        assert_eq!(g.output, GsOutput::TriangleStrip);
        assert_eq!((g.max_vertices, g.instances, mask), (6, 2, 1));
        let (g, mask) = state(&entry(vec![7, 3, 3, 1, 1]), "here").unwrap();
        assert_eq!(
            (g.input, g.output, mask),
            (GsInput::TriangleAdj, GsOutput::PointList, 3)
        );
        let (g, _) = state(&entry(vec![6, 3, 1, 3]), "here").unwrap();
        assert_eq!(
            (g.input, g.output, g.instances),
            (GsInput::LineAdj, GsOutput::LineStrip, 1)
        );
    }

    /// D3D11.3 §13.6 and the D3D11 limits: at most 1024 vertices (over the instances
    /// too), 1 to 32 instances, streams 0 … 3, the enumerations' values; each refusal
    /// names the field.
    #[test]
    fn bad_states_are_refused_by_name() {
        let refused = |v: Vec<i64>, what: &str| {
            let e = state(&entry(v), "entry point main")
                .unwrap_err()
                .to_string();
            assert!(e.contains(what), "{e}");
            assert!(e.contains("entry point main"), "{e}");
        };
        refused(vec![3, 1025, 1, 5, 1], "max vertex count 1025");
        refused(vec![3, 600, 1, 5, 2], "across the instances");
        refused(vec![3, 6, 1, 5, 33], "instance count 33");
        refused(vec![3, 6, 1, 5, 0], "instance count 0");
        refused(vec![3, 6, 0x10, 1, 1], "stream mask 0x10");
        refused(vec![4, 6, 1, 5, 1], "input primitive 4");
        refused(vec![3, 6, 1, 4, 1], "output topology 4");
        refused(vec![3, -1, 1, 5, 1], "max vertex count -1");
        refused(vec![3], "no max vertex count");
        let mut e = entry(vec![]);
        e.properties.clear();
        let m = state(&e, "x").unwrap_err().to_string();
        assert!(m.contains("without its state"), "{m}");
    }
}
