//! Stage linking: which input-layout element feeds each vertex-program input, and which
//! vertex-program output (or rasterizer value) feeds each pixel-program input — checked
//! before anything runs, as Direct3D checks a pipeline state.
//!
//! # Rules
//!
//! - **Input layout → vertex stage** (D3D12 pipeline-state validation): every input the
//!   vertex program declares, other than `SV_VertexID` and `SV_InstanceID`, needs an
//!   input-layout element with the same semantic name (any case) and index; an element of
//!   several rows needs one per row (semantic index + row). The element's format decides
//!   the bits the program reads (`ia`).
//! - **Vertex stage → pixel stage** (D3D11.3 §4.4.3.2 "Stage-to-Stage Interface"; D3D12 signature
//!   rules): stages link by signature register. For each register and component a pixel
//!   input reads, the vertex program must write that register and component, with the
//!   same semantic name and index there and the same component type; the pixel input's
//!   components must be a subset of the output's. System values the rasterizer makes
//!   (`SysValue::made_by_rasterizer`: `SV_Position`, `SV_IsFrontFace`, `SV_SampleIndex`,
//!   `SV_Coverage`, `SV_InnerCoverage`, `SV_PrimitiveID`, …) need no vertex output.
//! - The vertex program must write `SV_Position` (four components) for anything to be
//!   rasterized.

use crate::ir::io::NO_REGISTER;
use crate::ir::{ComponentType, Interp, IoElement, Shader, SysValue};

use super::ia::Element;

/// Where one vertex-program input word comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VsSource {
    /// Component `component` of input-layout element `element`.
    Layout {
        /// Index into the resolved layout.
        element: usize,
        /// 0 = x … 3 = w.
        component: u8,
    },
    /// `SV_VertexID`.
    VertexId,
    /// `SV_InstanceID`.
    InstanceId,
    /// `SV_StartVertexLocation`: `BaseVertexLocation` (indexed draws) or
    /// `StartVertexLocation`.
    StartVertex,
    /// `SV_StartInstanceLocation`.
    StartInstance,
    /// Nothing (a system value this pipeline does not make, e.g. `SV_ViewID`): 0.
    Zero,
}

/// Where one pixel-program input word comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsSource {
    /// Vertex output word `word`, interpolated as `interp` (float components only;
    /// integer components are always `Constant`).
    Vertex {
        /// Word of the vertex outputs.
        word: u32,
        /// How it is interpolated.
        interp: Interp,
    },
    /// `SV_Position` component 0–3 (x, y at the pixel centre or the input's sample or
    /// centroid, z the interpolated depth, w the interpolated clip w).
    Position {
        /// Component.
        component: u8,
        /// The element's interpolation mode (centroid and sample move x, y and z).
        interp: Interp,
    },
    /// `SV_IsFrontFace`: 0xffffffff for a front face.
    IsFrontFace,
    /// `SV_SampleIndex`.
    SampleIndex,
    /// `SV_Coverage` (input coverage mask).
    Coverage,
    /// `SV_InnerCoverage`: 0xffffffff when the pixel is wholly inside the primitive.
    InnerCoverage,
    /// `SV_PrimitiveID`.
    PrimitiveId,
    /// `SV_Barycentrics` component 0–2: the weight of the primitive's vertex 0, 1 or 2
    /// (perspective-correct unless the element is `noperspective`).
    Barycentric {
        /// Component (the vertex).
        component: u8,
        /// Perspective-correct weights.
        perspective: bool,
    },
    /// `SV_ShadingRate`: the lane's `D3D12_SHADING_RATE` (`vrs`).
    ShadingRate,
    /// A value no stage writes here: 0.
    Zero,
}

/// The linked stages: a source for every input word of each program, and where the
/// rasterizer finds its system values in the vertex outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Linked {
    /// One entry per vertex-program input word.
    pub vs_inputs: Vec<VsSource>,
    /// With a geometry program: per input word of one of its input vertices, the vertex
    /// output word that feeds it (`None`: nothing, it reads 0). Its registerless inputs
    /// (`SV_PrimitiveID`, `SV_GSInstanceID`) are the geometry stage's own.
    pub gs_inputs: Vec<Option<u32>>,
    /// One entry per pixel-program input word (empty without a pixel program).
    pub ps_inputs: Vec<PsSource>,
    /// The output words of `SV_Position` x, y, z, w of the stage before the rasterizer
    /// (the geometry program when there is one, else the vertex program; so for the
    /// fields below).
    pub position: [u32; 4],
    /// Vertex output words of `SV_ClipDistance` components (each clips where it is < 0).
    pub clip_distances: Vec<u32>,
    /// Vertex output words of `SV_CullDistance` components (a primitive whose vertices
    /// all have one of them < 0 is culled).
    pub cull_distances: Vec<u32>,
    /// Whether the pixel program reads `SV_SampleIndex` or has `sample` inputs, which
    /// runs it once per covered sample (D3D11.3 §3.5.4.1 "Sample-Frequency Execution and Rasterization", §16.2).
    pub per_sample: bool,
}

/// A stage-linking error: what does not match, naming the elements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LinkError(pub String);

fn name(e: &IoElement) -> String {
    let reg = if e.register == NO_REGISTER {
        String::new()
    } else {
        format!(" (register {})", e.register)
    };
    format!("{}{reg}", e.semantic_name())
}

fn same_semantic(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Links the input layout with the vertex program, and the vertex program with the pixel
/// program (see the module doc).
pub fn link(layout: &[Element], vs: &Shader, ps: Option<&Shader>) -> Result<Linked, LinkError> {
    link_with(layout, vs, None, ps)
}

/// The stage before the rasterizer, as messages name it.
fn stage_name(s: &Shader) -> &'static str {
    match s.stage {
        crate::ir::Stage::Geometry => "the geometry program",
        crate::ir::Stage::Domain => "the domain program",
        _ => "the vertex program",
    }
}

/// Links the input layout with the vertex program, the vertex program with the
/// geometry program when there is one, and the last of them with the pixel program (see
/// the module doc).
pub fn link_with(
    layout: &[Element],
    vs: &Shader,
    gs: Option<&Shader>,
    ps: Option<&Shader>,
) -> Result<Linked, LinkError> {
    link_stages(layout, vs, None, gs, ps, Some(0))
}

/// As [`link_with`], with a domain program (`ds`) in place of the vertex program as the
/// stage that feeds the geometry program or the rasterizer, and `stream` the geometry
/// program's rasterized stream (`Some(0)` without one; the rasterizer and the pixel
/// program read that stream's elements, `gs::stream_elements`). `None` is stream
/// output's `D3D11_SO_NO_RASTERIZED_STREAM`: nothing reaches the rasterizer, so the last
/// stage need not write `SV_Position` (D3D11.3 §15.1: the rasterizer is what reads it;
/// D3D12 accepts such a pipeline state). The tessellation stages' own links are
/// [`link_tessellation`]'s.
pub fn link_stages(
    layout: &[Element],
    vs: &Shader,
    ds: Option<&Shader>,
    gs: Option<&Shader>,
    ps: Option<&Shader>,
    stream: Option<u32>,
) -> Result<Linked, LinkError> {
    let mut vs_inputs = vec![VsSource::Zero; vs.input_words as usize];
    for e in &vs.inputs {
        for r in 0..e.rows {
            for c in 0..4u32 {
                if e.mask & (1 << c) == 0 {
                    continue;
                }
                let src = match e.sv {
                    SysValue::VertexId => VsSource::VertexId,
                    SysValue::InstanceId => VsSource::InstanceId,
                    SysValue::StartVertexLocation => VsSource::StartVertex,
                    SysValue::StartInstanceLocation => VsSource::StartInstance,
                    SysValue::None => {
                        let index = e.semantic_index + r;
                        let Some(el) = layout.iter().position(|l| {
                            same_semantic(&l.semantic, &e.semantic) && l.semantic_index == index
                        }) else {
                            return Err(LinkError(format!(
                                "the vertex program reads {}{index}, which the input layout does not provide",
                                e.semantic
                            )));
                        };
                        VsSource::Layout {
                            element: el,
                            component: c as u8,
                        }
                    }
                    _ => VsSource::Zero,
                };
                if let Some(slot) = vs_inputs.get_mut(e.word(r, c) as usize) {
                    *slot = src;
                }
            }
        }
    }

    let gs_inputs = match gs {
        Some(g) => geometry_inputs(ds.unwrap_or(vs), g)?,
        None => Vec::new(),
    };
    // The stage whose outputs the rasterizer reads.
    let vs = gs.or(ds).unwrap_or(vs);
    let up = stage_name(vs);
    let outs = super::gs::stream_elements(vs, stream.unwrap_or(0));
    let pos = outs.iter().find(|o| o.sv == SysValue::Position);
    let position = match (pos, stream) {
        (Some(pos), _) if pos.mask == 0xf => [
            pos.word(0, 0),
            pos.word(0, 1),
            pos.word(0, 2),
            pos.word(0, 3),
        ],
        // Nothing is rasterized: the words are never read (the draw stops each
        // primitive after stream output).
        (_, None) => [0; 4],
        (Some(pos), Some(_)) => {
            return Err(LinkError(format!(
                "{up} writes SV_Position.{} but the rasterizer needs all of xyzw",
                crate::ir::io::mask_letters(pos.mask)
            )));
        }
        (None, Some(_)) => return Err(LinkError(format!("{up} does not write SV_Position"))),
    };
    let words_of = |sv: SysValue| -> Vec<u32> {
        let mut v = Vec::new();
        for o in outs.iter().filter(|o| o.sv == sv) {
            for r in 0..o.rows {
                for c in 0..4 {
                    if o.mask & (1 << c) != 0 {
                        v.push(o.word(r, c));
                    }
                }
            }
        }
        v
    };
    let clip_distances = words_of(SysValue::ClipDistance);
    let cull_distances = words_of(SysValue::CullDistance);

    let mut ps_inputs = Vec::new();
    let mut per_sample = false;
    if let Some(ps) = ps {
        ps_inputs = vec![PsSource::Zero; ps.input_words as usize];
        for e in &ps.inputs {
            if e.sv == SysValue::SampleIndex || e.interp.per_sample() {
                per_sample = true;
            }
            for r in 0..e.rows {
                for c in 0..4u32 {
                    if e.mask & (1 << c) == 0 {
                        continue;
                    }
                    let src = ps_source(e, r, c, &outs, up)?;
                    if let Some(slot) = ps_inputs.get_mut(e.word(r, c) as usize) {
                        *slot = src;
                    }
                }
            }
        }
    }
    Ok(Linked {
        vs_inputs,
        gs_inputs,
        ps_inputs,
        position,
        clip_distances,
        cull_distances,
        per_sample,
    })
}

/// The source of pixel input `e`'s row `r`, component `c`, among `outs`, the elements
/// the rasterizer reads of the stage `up` names.
fn ps_source(
    e: &IoElement,
    r: u32,
    c: u32,
    outs: &[&IoElement],
    up: &str,
) -> Result<PsSource, LinkError> {
    match e.sv {
        SysValue::Position => {
            return Ok(PsSource::Position {
                component: c as u8,
                interp: e.interp,
            });
        }
        SysValue::IsFrontFace => return Ok(PsSource::IsFrontFace),
        SysValue::SampleIndex => return Ok(PsSource::SampleIndex),
        SysValue::Coverage => return Ok(PsSource::Coverage),
        SysValue::InnerCoverage => return Ok(PsSource::InnerCoverage),
        SysValue::PrimitiveId => return Ok(PsSource::PrimitiveId),
        SysValue::ShadingRate => return Ok(PsSource::ShadingRate),
        SysValue::Barycentrics => {
            return Ok(PsSource::Barycentric {
                component: c as u8,
                perspective: !matches!(
                    e.interp,
                    Interp::LinearNoPerspective
                        | Interp::LinearNoPerspectiveCentroid
                        | Interp::LinearNoPerspectiveSample
                ),
            });
        }
        sv if sv.made_by_rasterizer() => return Ok(PsSource::Zero),
        _ => {}
    }
    if e.register == NO_REGISTER {
        return Err(LinkError(format!(
            "the pixel program reads {}, which has no signature register to link by",
            name(e)
        )));
    }
    let reg = e.register + r;
    let Some(o) = outs.iter().find(|o| {
        o.register != NO_REGISTER
            && (o.register..o.register + o.rows).contains(&reg)
            && o.mask & (1 << c) != 0
    }) else {
        let partial = outs.iter().find(|o| {
            o.register != NO_REGISTER && (o.register..o.register + o.rows).contains(&reg)
        });
        return Err(LinkError(match partial {
            Some(o) => format!(
                "the pixel program reads {}.{} but {up} writes only {}.{} at register {reg}",
                name(e),
                crate::ir::io::mask_letters(e.mask),
                o.semantic_name(),
                crate::ir::io::mask_letters(o.mask)
            ),
            None => format!(
                "the pixel program reads {}, but {up} writes nothing at register {reg}",
                name(e)
            ),
        }));
    };
    let orow = reg - o.register;
    if !same_semantic(&o.semantic, &e.semantic) || o.semantic_index + orow != e.semantic_index + r {
        return Err(LinkError(format!(
            "register {reg}: the pixel program reads {}{} but {up} writes {}{} there",
            e.semantic,
            e.semantic_index + r,
            o.semantic,
            o.semantic_index + orow
        )));
    }
    if o.component != e.component {
        return Err(LinkError(format!(
            "register {reg} ({}): {up} writes {} but the pixel program reads {}",
            e.semantic_name(),
            o.component,
            e.component
        )));
    }
    let interp = if !matches!(e.component, ComponentType::SInt | ComponentType::UInt) {
        match e.interp {
            Interp::Undefined => Interp::Linear,
            i => i,
        }
    } else {
        Interp::Constant
    };
    Ok(PsSource::Vertex {
        word: o.word(orow, c),
        interp,
    })
}

/// Vertex outputs → the inputs of one geometry input vertex, by register, component,
/// semantic and type as for the pixel stage (D3D11.3 §4.4.3.2); the registerless inputs
/// (`SV_PrimitiveID`, `SV_GSInstanceID`) are left to the geometry stage.
fn geometry_inputs(up: &Shader, gs: &Shader) -> Result<Vec<Option<u32>>, LinkError> {
    let per_vertex = gs.geometry.map_or(gs.input_words, |g| g.vertex_words);
    let all = |_: &IoElement| true;
    sources(
        File::new(stage_name(up), &up.outputs, 0, all),
        File::new("the geometry program", &gs.inputs, 0, all),
        per_vertex,
    )
}

/// One register file of a stage's elements, for [`sources`]: the stage's name as
/// messages give it, its elements in the file, and the word of the file's register 0.
struct File<'a> {
    name: &'a str,
    elems: Vec<&'a IoElement>,
    base: u32,
}

impl<'a> File<'a> {
    fn new(
        name: &'a str,
        elems: &'a [IoElement],
        base: u32,
        keep: impl Fn(&IoElement) -> bool,
    ) -> File<'a> {
        File {
            name,
            elems: elems
                .iter()
                .filter(|e| e.register != NO_REGISTER && keep(e))
                .collect(),
            base,
        }
    }
}

/// The words of `up`'s file that feed each of `words` words of `down`'s (relative to
/// their bases; `None`: nothing, it reads 0): D3D links stages by register and component,
/// and requires each read register to be written with the same semantic and type
/// (D3D11.3 §4.4.3.2), so a mismatch is an error naming both programs.
fn sources(up: File<'_>, down: File<'_>, words: u32) -> Result<Vec<Option<u32>>, LinkError> {
    let mut out = vec![None; words as usize];
    for e in &down.elems {
        for r in 0..e.rows {
            let reg = e.register + r;
            for c in 0..4u32 {
                if e.mask & (1 << c) == 0 {
                    continue;
                }
                let Some(o) = up.elems.iter().find(|o| {
                    (o.register..o.register + o.rows).contains(&reg) && o.mask & (1 << c) != 0
                }) else {
                    return Err(LinkError(format!(
                        "{} reads {}.{} at register {reg}, but {} writes nothing there",
                        down.name,
                        name(e),
                        crate::ir::io::mask_letters(1 << c),
                        up.name
                    )));
                };
                let orow = reg - o.register;
                if !same_semantic(&o.semantic, &e.semantic)
                    || o.semantic_index + orow != e.semantic_index + r
                {
                    return Err(LinkError(format!(
                        "register {reg}: {} reads {}{} but {} writes {}{} there",
                        down.name,
                        e.semantic,
                        e.semantic_index + r,
                        up.name,
                        o.semantic,
                        o.semantic_index + orow
                    )));
                }
                if o.component != e.component {
                    return Err(LinkError(format!(
                        "register {reg} ({}): {} writes {} but {} reads {}",
                        e.semantic_name(),
                        up.name,
                        o.component,
                        down.name,
                        e.component
                    )));
                }
                let at = e.word(r, c).wrapping_sub(down.base);
                if let Some(slot) = out.get_mut(at as usize) {
                    *slot = Some(o.word(orow, c).wrapping_sub(up.base));
                }
            }
        }
    }
    Ok(out)
}

/// How the tessellation stages read what the stages before them wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TessLinks {
    /// Per input word of one hull input control point, the vertex output word feeding it.
    pub hull_points: Vec<Option<u32>>,
    /// Per input word of one domain control point, the hull output word (within one
    /// output control point) feeding it.
    pub domain_points: Vec<Option<u32>>,
    /// Per domain patch-constant input word (from its `patch_word`), the hull
    /// patch-constant word (from its `output_point_words`) feeding it.
    pub domain_patch: Vec<Option<u32>>,
}

/// Links the vertex program with the hull program's input control points, and the hull
/// program's output control points and patch constants with the domain program's (see
/// [`TessLinks`]); the domain must be the hull's (D3D11.3 §10.10 "Domain Shader": the
/// stages must agree on it).
pub fn link_tessellation(vs: &Shader, hs: &Shader, ds: &Shader) -> Result<TessLinks, LinkError> {
    let (Some(h), Some(d)) = (hs.hull, ds.domain) else {
        return Err(LinkError(format!(
            "the hull program is a {} program and the domain program a {} program",
            hs.stage, ds.stage
        )));
    };
    if h.domain != d.domain {
        return Err(LinkError(format!(
            "the hull program's domain is {} but the domain program's is {} (dcl_tessellator_domain): they must match",
            h.domain, d.domain
        )));
    }
    if d.input_points != h.output_points {
        return Err(LinkError(format!(
            "the domain program reads {} control points but the hull program outputs {} (dcl_input_control_point_count, dcl_output_control_point_count): they must match",
            d.input_points, h.output_points
        )));
    }
    let all = |_: &IoElement| true;
    let hull_points = sources(
        File::new("the vertex program", &vs.outputs, 0, all),
        File::new("the hull program", &hs.inputs, 0, all),
        h.point_words,
    )?;
    let opw = h.output_point_words;
    let domain_points = sources(
        File::new("the hull program's control points", &hs.outputs, 0, |e| {
            e.slot < opw
        }),
        File::new("the domain program", &ds.inputs, 0, |e| {
            e.slot < d.patch_word
        }),
        d.point_words,
    )?;
    let domain_patch = sources(
        File::new(
            "the hull program's patch constants",
            &hs.outputs,
            opw,
            |e| e.slot >= opw,
        ),
        File::new(
            "the domain program's patch constants",
            &ds.inputs,
            d.patch_word,
            |e| e.slot >= d.patch_word && e.slot < d.location_word,
        ),
        d.location_word.saturating_sub(d.patch_word),
    )?;
    Ok(TessLinks {
        hull_points,
        domain_points,
        domain_patch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;
    use crate::resources::Format;

    const VS: &str = "shader vertex\nregs 1\nio_words in 8 out 12\n\
input \"POSITION\" 0 sv none reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
input \"SV_VertexID\" 0 sv vertex_id reg 1 rows 1 mask x uint interp undefined slot 4\n\
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
output \"TEXCOORD\" 0 sv none reg 1 rows 1 mask xy float interp undefined slot 4\n\
output \"TEXCOORD\" 1 sv none reg 1 rows 1 mask zw float interp undefined slot 4\n\
output \"COLOR\" 0 sv none reg 2 rows 1 mask xyz float interp undefined slot 8\n\
block0:\n    return\n";

    fn ps(inputs: &str) -> Shader {
        parse_shader(&format!(
            "shader pixel\nregs 1\nio_words in 12 out 4\n{inputs}block0:\n    return\n"
        ))
        .unwrap()
    }

    fn layout() -> Vec<Element> {
        vec![Element {
            semantic: "position".into(),
            semantic_index: 0,
            format: Format::R32G32B32_FLOAT,
            slot: 0,
            offset: 0,
            step_rate: 0,
        }]
    }

    /// Register-by-register linking with packed elements: TEXCOORD1 sits in .zw of
    /// register 1; the pixel input's components are a subset of the output's.
    #[test]
    fn links_by_register_and_component() {
        let vs = parse_shader(VS).unwrap();
        let p = ps(
            "input \"SV_Position\" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0\n\
input \"TEXCOORD\" 1 sv none reg 1 rows 1 mask z float interp linear slot 4\n\
input \"COLOR\" 0 sv none reg 2 rows 1 mask xy float interp constant slot 8\n\
input \"SV_IsFrontFace\" 0 sv is_front_face reg 3 rows 1 mask x uint interp constant slot 9\n",
        );
        let l = link(&layout(), &vs, Some(&p)).unwrap();
        assert_eq!(l.position, [0, 1, 2, 3]);
        assert_eq!(
            l.vs_inputs[0],
            VsSource::Layout {
                element: 0,
                component: 0
            }
        );
        assert_eq!(l.vs_inputs[4], VsSource::VertexId);
        assert_eq!(
            l.ps_inputs[6],
            PsSource::Vertex {
                word: 6,
                interp: Interp::Linear
            }
        );
        assert_eq!(
            l.ps_inputs[9],
            PsSource::IsFrontFace,
            "made by the rasterizer: needs no output"
        );
    }

    /// Mismatches are errors naming both sides (D3D12 signature linking).
    #[test]
    fn mismatches_are_refused() {
        let vs = parse_shader(VS).unwrap();
        let e = link(
            &layout(),
            &vs,
            Some(&ps(
                "input \"TEXCOORD\" 0 sv none reg 1 rows 1 mask z float interp linear slot 4\n",
            )),
        )
        .unwrap_err();
        assert!(
            e.0.contains("reads TEXCOORD0 but the vertex program writes TEXCOORD1"),
            "{e}"
        );
        let e = link(
            &layout(),
            &vs,
            Some(&ps(
                "input \"COLOR\" 0 sv none reg 2 rows 1 mask w float interp linear slot 8\n",
            )),
        )
        .unwrap_err();
        assert!(e.0.contains("writes only COLOR0.xyz"), "{e}");
        let e = link(
            &layout(),
            &vs,
            Some(&ps(
                "input \"FOG\" 0 sv none reg 5 rows 1 mask x float interp linear slot 4\n",
            )),
        )
        .unwrap_err();
        assert!(e.0.contains("writes nothing at register 5"), "{e}");
        let e = link(&[], &vs, None).unwrap_err();
        assert!(
            e.0.contains("reads POSITION0, which the input layout"),
            "{e}"
        );
        let e = link(
            &layout(),
            &vs,
            Some(&ps(
                "input \"COLOR\" 0 sv none reg 2 rows 1 mask x uint interp constant slot 8\n",
            )),
        )
        .unwrap_err();
        assert!(
            e.0.contains("writes float but the pixel program reads uint"),
            "{e}"
        );
    }
}
