//! The domain stage: the domain program run once per point the tessellator generates,
//! its outputs the vertices of the tessellated primitives.
//!
//! Owns: filling a domain lane's input words — the patch's control points and patch
//! constants from the hull stage's outputs (through the link's `domain_points` and
//! `domain_patch`), `SV_DomainLocation` and `SV_PrimitiveID` — and keeping every point's
//! output words for the stages after it. Does not own: the points (`tess`), the hull
//! program (`hs`), or what the outputs mean (`link`, `clip`).
//!
//! # Rules (D3D11.3 §10.10 "Domain Shader Stage", §11.7 "Tessellation Pattern")
//!
//! - **Invocations.** One per domain point of the patch, in the tessellator's order;
//!   `SV_DomainLocation` is the point's (u, v) (quad, isoline) or (u, v, w) with
//!   w = 1 − u − v (tri, `tess::tri_w`), unused components 0; `SV_PrimitiveID` is the
//!   patch's.
//! - **Primitives.** The tessellator's index list, read in order, makes the stage's
//!   primitives over the points' outputs; the patch's primitives keep its
//!   `SV_PrimitiveID`.

use super::draw::StageWrites;
use super::hs::{HullOutputs, run_lanes};
use super::tess::tri_w;
use super::trace::TraceProgram;
use super::vs::VertexOutputs;
use super::work::LaneSelect;
use crate::exec::{ExecError, StageProgram};
use crate::ir::{DomainState, Shader, SysValue, TessDomain};

/// What the domain stage reads for one patch besides the program.
pub struct DomainJob<'a> {
    /// The hull stage's outputs.
    pub hull: &'a HullOutputs,
    /// The patch (its index in `hull`).
    pub patch: u32,
    /// Its `SV_PrimitiveID`.
    pub id: u32,
    /// Output control points per patch (the hull program's).
    pub points_per_patch: u32,
    /// The domain points, `(u, v)`.
    pub points: &'a [[f32; 2]],
    /// Per input word of one control point, the hull output word feeding it.
    pub point_sources: &'a [Option<u32>],
    /// Per patch-constant input word, the hull patch-constant word feeding it.
    pub patch_sources: &'a [Option<u32>],
}

/// The domain state of a program the draw was given as its domain program.
pub fn state(s: &Shader) -> Result<DomainState, ExecError> {
    s.domain.ok_or_else(|| {
        ExecError::Dispatch(format!(
            "the domain program is a {} program without a domain state",
            s.stage
        ))
    })
}

/// Runs the domain program over every point of `job`, appending their outputs to `out`
/// (its `stride` set to the program's output words) in the points' order. Returns the
/// lane-instructions executed.
pub fn shade(
    program: &StageProgram<'_>,
    job: &DomainJob<'_>,
    out: &mut VertexOutputs,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
) -> Result<u64, ExecError> {
    shade_traced(program, job, out, charge, None, None)
}

/// [`shade`], with `trace` = (the debugger's program, domain point `k`): the wave running
/// point `k` of the patch is traced. With `writes`, the other waves' memory writes are
/// reported, each named by its patch and domain point.
pub(crate) fn shade_traced(
    program: &StageProgram<'_>,
    job: &DomainJob<'_>,
    out: &mut VertexOutputs,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
    trace: Option<(&TraceProgram<'_>, usize)>,
    writes: Option<StageWrites<'_>>,
) -> Result<u64, ExecError> {
    let s = program.shader();
    let d = state(s)?;
    let stride = s.output_words as usize;
    out.stride = stride;
    let first = out.words.len();
    out.words.resize(first + job.points.len() * stride, 0);
    let prim_word = s.input_sv(SysValue::PrimitiveId).map(|e| e.slot as usize);
    let pw = d.point_words as usize;
    let base_point = job.patch.saturating_mul(job.points_per_patch);
    let words = &mut out.words[first..];
    let instance = writes.map_or(0, |w| w.instance);
    let lane = |i: usize| LaneSelect::Domain {
        patch: job.patch,
        point: i as u32,
        instance,
    };
    run_lanes(
        program,
        job.points.len(),
        &|i| [job.id, i as u32, 0],
        &mut |i, inputs, l, w| {
            let mut put = |word: usize, v: u32| {
                if let Some(x) = inputs.get_mut(word * w + l) {
                    *x = v;
                }
            };
            for k in 0..d.input_points {
                for (word, src) in job.point_sources.iter().enumerate().take(pw) {
                    let v = src.map_or(0, |o| job.hull.points.word(base_point + k, o));
                    put(k as usize * pw + word, v);
                }
            }
            for (word, src) in job.patch_sources.iter().enumerate() {
                let v = src.map_or(0, |o| job.hull.constants.word(job.patch, o));
                put(d.patch_word as usize + word, v);
            }
            let [u, v] = job.points.get(i).copied().unwrap_or([0.0; 2]);
            let w3 = if d.domain == TessDomain::Tri {
                tri_w([u, v])
            } else {
                0.0
            };
            let at = d.location_word as usize;
            put(at, u.to_bits());
            put(at + 1, v.to_bits());
            put(at + 2, w3.to_bits());
            if let Some(p) = prim_word {
                put(p, job.id);
            }
        },
        &mut |i, outputs, l, w| {
            for k in 0..stride {
                if let (Some(dst), Some(v)) =
                    (words.get_mut(i * stride + k), outputs.get(k * w + l))
                {
                    *dst = *v;
                }
            }
        },
        charge,
        trace,
        writes.map(|w| (w, &lane as &(dyn Fn(usize) -> LaneSelect + Sync))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{DescriptorTable, Limits, Profile};
    use crate::ir::parse_shader;
    use crate::pipeline::tess::{
        Domain, OutputPrimitive, Partitioning, TessFactors, TessellatorDesc, tessellate,
    };

    /// A domain program that copies `SV_DomainLocation` (input words 8 … 10, after one
    /// control point of one register and one patch constant register) to output words
    /// 4 … 6, and control point 0's x and the patch constant's x to words 7 and 3.
    fn program(domain: &str) -> Shader {
        parse_shader(&format!(
            "shader domain\nregs 8\nio_words in 12 out 8\n\
input \"P\" 0 sv none reg 0 rows 1 mask x float interp undefined slot 0\n\
input \"K\" 0 sv none reg 0 rows 1 mask x float interp undefined slot 4\n\
input \"SV_DomainLocation\" 0 sv domain_location reg none rows 1 mask xyz float interp undefined slot 8\n\
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
output \"LOC\" 0 sv none reg 1 rows 1 mask xyzw float interp undefined slot 4\n\
domain domain {domain} input_points 1 point_words 4 patch_word 4 location_word 8\n\
block0:\n    input r0, 8\n    input r1, 9\n    input r2, 10\n    input r3, 0\n    input r4, 4\n\
    output 4, r0\n    output 5, r1\n    output 6, r2\n    output 7, r3\n    output 3, r4\n    return\n"
        ))
        .unwrap()
    }

    /// D3D11.3 §10.10 and §11.7: the domain program runs once per domain point, in the
    /// tessellator's order, `SV_DomainLocation` = (u, v) with w = 1 − u − v for the tri
    /// domain (0 otherwise) — for every domain and partitioning, over a few factor sets;
    /// the patch's control points and constants reach every lane.
    #[test]
    fn domain_locations_are_the_tessellators_points_in_order() {
        let hull = HullOutputs {
            points: VertexOutputs {
                words: vec![11f32.to_bits(), 0, 0, 0, 22f32.to_bits(), 0, 0, 0],
                stride: 4,
            },
            constants: VertexOutputs {
                words: vec![5f32.to_bits(), 0, 0, 0, 7f32.to_bits(), 0, 0, 0],
                stride: 4,
            },
        };
        let mut checked = 0;
        for (domain, word, output) in [
            (Domain::Tri, "tri", OutputPrimitive::TriangleCw),
            (Domain::Quad, "quad", OutputPrimitive::TriangleCcw),
            (Domain::Isoline, "isoline", OutputPrimitive::Line),
        ] {
            let s = program(word);
            let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
            let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 8).unwrap();
            for partitioning in [
                Partitioning::Integer,
                Partitioning::Pow2,
                Partitioning::FractionalOdd,
                Partitioning::FractionalEven,
            ] {
                for f in [1.0f32, 2.5, 3.9, 7.0] {
                    let desc = TessellatorDesc {
                        domain,
                        partitioning,
                        output_primitive: output,
                    };
                    let factors = TessFactors::quad([f, f + 1.0, f * 0.5, f], [f, f + 0.5]);
                    let t = tessellate(&desc, &factors).unwrap();
                    let job = DomainJob {
                        hull: &hull,
                        patch: 1,
                        id: 1,
                        points_per_patch: 1,
                        points: &t.points,
                        point_sources: &[Some(0), None, None, None],
                        patch_sources: &[Some(0), None, None, None],
                    };
                    let mut out = VertexOutputs::default();
                    shade(&p, &job, &mut out, &|_| Ok(())).unwrap();
                    assert_eq!(out.words.len(), t.points.len() * 8);
                    for (i, pt) in t.points.iter().enumerate() {
                        let i = i as u32;
                        let w = if domain == Domain::Tri {
                            tri_w(*pt)
                        } else {
                            0.0
                        };
                        assert_eq!(
                            [out.word(i, 4), out.word(i, 5), out.word(i, 6)],
                            [pt[0].to_bits(), pt[1].to_bits(), w.to_bits()],
                            "{domain} {partitioning} {f}: point {i}"
                        );
                        assert_eq!(out.word(i, 7), 22f32.to_bits(), "control point of patch 1");
                        assert_eq!(out.word(i, 3), 7f32.to_bits(), "constant of patch 1");
                    }
                    checked += t.points.len();
                }
            }
        }
        assert!(checked > 500, "{checked} points");
    }
}
