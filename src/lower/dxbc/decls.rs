//! Declarations → the shader header: thread group, resource ranges, indexable
//! temporaries, the immediate constant buffer, group shared memory regions, a vertex or
//! pixel program's inputs and outputs (laid out by [`super::io`]), a geometry program's
//! state (`dcl_inputprimitive`, `dcl_outputtopology`, `dcl_maxout`, `dcl_gsinstances`,
//! `dcl_stream`), global flags, and the
//! entry block's compute inputs and resource handles.

use std::collections::{BTreeSet, HashMap};

use super::io::{self, IndexRange, IoDecl, IoLayout, IoSource, PatchWords};
use super::{Lowerer, Reflection};
use crate::container::rdef::{InputType, Rdef};
use crate::dxbc::{
    BindingRange, Components, Declaration, GlobalFlags, HullPhase, Index, InstructionKind,
    Interpolation, Opcode, Operand, Primitive, PrimitiveTopology, Program, ResourceDimension,
    ReturnType, SamplerMode, SystemName, TessDomain, TessOutputPrimitive, TessPartitioning,
};
use crate::dxbc::{CustomData, RegisterType};
use crate::ir::validate::{MAX_GS_INSTANCES, MAX_GS_VERTICES};
use crate::ir::{
    Builder, ComponentType, ConstArray, ConstId, DenormMode, GeometryState, GsInput, GsOutput,
    Inst, LocalArray, LocalId, RangeId, Reg, ResourceClass, ResourceKind, ResourceRange, SourceLoc,
    Stage, SysVec,
};
use crate::lower::LowerError;

/// D3D11's largest thread group for `cs_5_0`/`cs_5_1` (D3D11.3 §18, `dcl_thread_group`):
/// x and y up to 1024, z up to 64, at most 1024 threads.
const MAX_GROUP_5: [u32; 4] = [1024, 1024, 64, 1024];
/// The same limits for `cs_4_0`/`cs_4_1`: x and y up to 768, z 1, at most 768 threads.
const MAX_GROUP_4: [u32; 4] = [768, 768, 1, 768];
/// The most group shared memory a `cs_5_0`/`cs_5_1` program may declare, all `g#`
/// together (32 KiB: the `dcl_tgsm_raw`/`dcl_tgsm_structured` reference pages, D3D11.3
/// §18).
pub const MAX_GROUPSHARED_BYTES: u32 = 32 * 1024;
/// The same limit for `cs_4_0`/`cs_4_1` (16 KiB on Direct3D 10.x hardware).
pub const MAX_GROUPSHARED_BYTES_4: u32 = 16 * 1024;
/// The most indexable-temporary registers a program may declare (D3D11.3 §21: 4096
/// temporaries, indexable ones included).
pub const MAX_INDEXABLE_REGISTERS: u32 = 4096;
/// The most elements a constant buffer holds (D3D11.3: 4096 16-byte vectors); relative
/// row indices are clamped to it so that `row * 16` cannot wrap.
pub const MAX_CB_ROWS: u32 = 4096;

/// A declared resource range, as instructions find it.
#[derive(Debug, Clone)]
pub(super) struct RangeInfo {
    /// The IR range.
    pub id: RangeId,
    /// Its first register (Shader Model 5.1 operands give absolute register numbers).
    pub lower: u32,
    /// Its shape.
    pub kind: ResourceKind,
}

/// A `g#` declaration's region of group shared memory.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tgsm {
    /// Byte offset of the region.
    pub base: u32,
    /// Size in bytes.
    pub size: u32,
    /// Structure stride (0 for raw regions).
    pub stride: u32,
    /// Structure count (0 for raw regions).
    pub count: u32,
}

/// An indexable temporary `x#`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Local {
    /// The IR array.
    pub id: LocalId,
    /// Elements (16 bytes each).
    pub elements: u32,
}

/// What the declarations say, in the form instructions need it.
#[derive(Debug)]
pub(super) struct Decls {
    /// `(t|u|cb|s, id)` → range.
    pub ranges: HashMap<(RegisterType, u32), RangeInfo>,
    /// Where each range was declared (its handles carry this location).
    pub range_locs: HashMap<RangeId, SourceLoc>,
    /// Handles made in the entry block: `(range, index within the range)` → register.
    pub handles: HashMap<(RangeId, u32), Reg>,
    /// `x#` → array.
    pub locals: HashMap<u32, Local>,
    /// The immediate constant buffer: its array, element count and words.
    pub icb: Option<(ConstId, u32, Vec<u32>)>,
    /// `g#` → region.
    pub tgsm: HashMap<u32, Tgsm>,
    /// Compute inputs → their registers (x, y, z; the flattened index in all three).
    pub inputs: HashMap<RegisterType, [Reg; 3]>,
    /// Where each input was declared.
    pub input_locs: HashMap<RegisterType, SourceLoc>,
    /// Whether the program is Shader Model 5.1 (ranged operands).
    pub sm51: bool,
    /// The stage the program runs in.
    pub stage: Stage,
    /// Vertex and pixel programs: the input and output declarations.
    pub io_decls: Vec<IoDecl>,
    /// Vertex and pixel programs: the `dcl_indexrange`s.
    pub index_ranges: Vec<IndexRange>,
    /// Vertex and pixel programs: where the inputs and outputs live.
    pub io: IoLayout,
    /// Geometry programs: the state their declarations give.
    pub gs: GsDecls,
    /// Hull and domain programs: the state their declarations give.
    pub tess: TessDecls,
}

/// What a hull or domain program's declarations say.
#[derive(Debug, Default)]
pub(super) struct TessDecls {
    /// The hull phase the declarations being read belong to.
    pub phase: Option<HullPhase>,
    /// `dcl_tessellator_domain` and where.
    pub domain: Option<(TessDomain, usize)>,
    /// `dcl_tessellator_partitioning` and where.
    pub partitioning: Option<(TessPartitioning, usize)>,
    /// `dcl_tessellator_output_primitive` and where.
    pub output: Option<(TessOutputPrimitive, usize)>,
    /// `dcl_input_control_point_count` and where.
    pub points_in: Option<(u32, usize)>,
    /// `dcl_output_control_point_count` and where.
    pub points_out: Option<(u32, usize)>,
    /// `dcl_hs_max_tessfactor`.
    pub max_factor: Option<f32>,
    /// Where the layout put the words only these stages have.
    pub words: PatchWords,
}

/// What a geometry program's declarations say.
#[derive(Debug, Default)]
pub(super) struct GsDecls {
    /// `dcl_inputprimitive` and where it was declared.
    pub input: Option<(Primitive, usize)>,
    /// `dcl_outputtopology` and where.
    pub output: Option<(PrimitiveTopology, usize)>,
    /// `dcl_maxout` and where.
    pub max: Option<(u32, usize)>,
    /// `dcl_gsinstances` and where (1 without one).
    pub instances: Option<(u32, usize)>,
    /// Vertices per input primitive (1 outside geometry programs).
    pub vertices: u32,
}

impl Decls {
    fn new(stage: Stage, sm51: bool) -> Decls {
        Decls {
            ranges: HashMap::new(),
            range_locs: HashMap::new(),
            handles: HashMap::new(),
            locals: HashMap::new(),
            icb: None,
            tgsm: HashMap::new(),
            inputs: HashMap::new(),
            input_locs: HashMap::new(),
            sm51,
            stage,
            io_decls: Vec::new(),
            index_ranges: Vec::new(),
            io: IoLayout::default(),
            gs: GsDecls {
                vertices: 1,
                ..GsDecls::default()
            },
            tess: TessDecls::default(),
        }
    }
}

/// A geometry program's [`GeometryState`] from its declarations: D3D requires the input
/// primitive, the output topology (point list, line strip or triangle strip: what HLSL's
/// `PointStream`, `LineStream`, `TriangleStream` declare) and `dcl_maxout`, which is at
/// most 1024 (`D3D11_GS_MAX_OUTPUT_VERTEX_COUNT_ACROSS_INSTANCES`); `dcl_gsinstances`
/// is 1 … 32 (`D3D11_GS_MAX_INSTANCE_COUNT`), 1 when absent.
fn geometry_state(p: &Program, d: &Decls) -> Result<GeometryState, LowerError> {
    let missing = |what: &str| LowerError::Invalid {
        message: format!("a geometry program without {what}"),
        location: "the program's declarations".into(),
    };
    let (prim, at) = d.gs.input.ok_or_else(|| missing("dcl_inputprimitive"))?;
    let input = match prim {
        Primitive::Point => GsInput::Point,
        Primitive::Line => GsInput::Line,
        Primitive::Triangle => GsInput::Triangle,
        Primitive::LineAdj => GsInput::LineAdj,
        Primitive::TriangleAdj => GsInput::TriangleAdj,
        other => {
            return Err(invalid_at(
                p,
                at,
                format!(
                    "dcl_inputprimitive {other:?}: a geometry program reads points, lines or triangles (with or without adjacency)"
                ),
            ));
        }
    };
    let (topo, at) = d.gs.output.ok_or_else(|| missing("dcl_outputtopology"))?;
    let output = match topo {
        PrimitiveTopology::PointList => GsOutput::PointList,
        PrimitiveTopology::LineStrip => GsOutput::LineStrip,
        PrimitiveTopology::TriangleStrip => GsOutput::TriangleStrip,
        other => {
            return Err(invalid_at(
                p,
                at,
                format!(
                    "dcl_outputtopology {}: a geometry program emits a point list, a line strip or a triangle strip",
                    other.fxc_name()
                ),
            ));
        }
    };
    let (max_vertices, at) = d.gs.max.ok_or_else(|| missing("dcl_maxout"))?;
    if max_vertices > MAX_GS_VERTICES {
        return Err(invalid_at(
            p,
            at,
            format!("dcl_maxout {max_vertices}: at most {MAX_GS_VERTICES} vertices"),
        ));
    }
    let instances = match d.gs.instances {
        None => 1,
        Some((n, at)) => {
            if !(1..=MAX_GS_INSTANCES).contains(&n) {
                return Err(invalid_at(
                    p,
                    at,
                    format!("dcl_gsinstances {n}: 1 to {MAX_GS_INSTANCES} instances"),
                ));
            }
            n
        }
    };
    Ok(GeometryState {
        input,
        output,
        max_vertices,
        instances,
        vertex_words: d.io.input_regs.saturating_mul(4),
    })
}

fn loc_of(p: &Program, i: usize) -> SourceLoc {
    SourceLoc::Dxbc {
        index: u32::try_from(i).unwrap_or(u32::MAX),
        token: p.instructions.get(i).map_or(0, |x| x.offset),
    }
}

fn err_at(p: &Program, i: usize, what: String) -> LowerError {
    LowerError::Unsupported {
        what,
        location: loc_of(p, i).to_string(),
    }
}

fn invalid_at(p: &Program, i: usize, message: String) -> LowerError {
    LowerError::Invalid {
        message,
        location: loc_of(p, i).to_string(),
    }
}

/// The IR element type of a declaration's return type (the x component's; fxc and vkd3d
/// repeat one type in all four).
fn component_type(r: ReturnType) -> ComponentType {
    match r {
        ReturnType::Unorm => ComponentType::UNorm,
        ReturnType::Snorm => ComponentType::SNorm,
        ReturnType::Sint => ComponentType::SInt,
        ReturnType::Uint => ComponentType::UInt,
        ReturnType::Float => ComponentType::Float,
        ReturnType::Double => ComponentType::Double,
        ReturnType::Mixed | ReturnType::Continued | ReturnType::Unused => ComponentType::Mixed,
    }
}

/// The IR shape of a typed declaration's dimension.
fn typed_kind(d: ResourceDimension) -> Option<ResourceKind> {
    Some(match d {
        ResourceDimension::Buffer => ResourceKind::TypedBuffer,
        ResourceDimension::Texture1D => ResourceKind::Texture1D,
        ResourceDimension::Texture2D => ResourceKind::Texture2D,
        ResourceDimension::Texture2DMS => ResourceKind::Texture2DMS,
        ResourceDimension::Texture3D => ResourceKind::Texture3D,
        ResourceDimension::TextureCube => ResourceKind::TextureCube,
        ResourceDimension::Texture1DArray => ResourceKind::Texture1DArray,
        ResourceDimension::Texture2DArray => ResourceKind::Texture2DArray,
        ResourceDimension::Texture2DMSArray => ResourceKind::Texture2DMSArray,
        ResourceDimension::TextureCubeArray => ResourceKind::TextureCubeArray,
        ResourceDimension::Unknown
        | ResourceDimension::RawBuffer
        | ResourceDimension::StructuredBuffer => return None,
    })
}

/// The register class of a binding declaration's register type.
fn class_of(r: RegisterType) -> Option<ResourceClass> {
    match r {
        RegisterType::Resource => Some(ResourceClass::Srv),
        RegisterType::UnorderedAccessView => Some(ResourceClass::Uav),
        RegisterType::ConstantBuffer => Some(ResourceClass::Cbv),
        RegisterType::Sampler => Some(ResourceClass::Sampler),
        _ => None,
    }
}

/// The compute input an input register type is, if it is one.
pub(super) fn is_compute_input(r: RegisterType) -> bool {
    matches!(
        r,
        RegisterType::InputThreadId
            | RegisterType::InputThreadGroupId
            | RegisterType::InputThreadIdInGroup
            | RegisterType::InputThreadIdInGroupFlattened
    )
}

/// The reflection name of a range: the RDEF binding of the same class that covers its
/// first register in its space (`name[k]` when the range starts inside an array).
fn rdef_name(rdef: Option<&Rdef>, class: ResourceClass, space: u32, lower: u32) -> String {
    let Some(rdef) = rdef else {
        return String::new();
    };
    for b in &rdef.bindings {
        let b_class = match b.input_type {
            InputType::Cbuffer => ResourceClass::Cbv,
            InputType::Sampler => ResourceClass::Sampler,
            t if t.register_prefix() == "u" => ResourceClass::Uav,
            _ => ResourceClass::Srv,
        };
        if b_class != class || b.space.unwrap_or(0) != space {
            continue;
        }
        if b.bind_point == lower {
            return b.name.clone();
        }
        let count = if b.bind_count == 0 {
            u32::MAX
        } else {
            b.bind_count
        };
        if lower > b.bind_point && lower.wrapping_sub(b.bind_point) < count {
            return format!("{}[{}]", b.name, lower.wrapping_sub(b.bind_point));
        }
    }
    String::new()
}

/// Whether the reflection says a UAV has a hidden counter (append, consume, or a
/// structured buffer with a counter).
fn rdef_counter(rdef: Option<&Rdef>, space: u32, lower: u32) -> bool {
    rdef.is_some_and(|r| {
        r.bindings.iter().any(|b| {
            matches!(
                b.input_type,
                InputType::UavAppendStructured
                    | InputType::UavConsumeStructured
                    | InputType::UavRwStructuredWithCounter
            ) && b.bind_point == lower
                && b.space.unwrap_or(0) == space
        })
    })
}

impl Decls {
    /// Reads every declaration into the builder's shader header.
    ///
    /// The header's fp32 denormal mode is always [`DenormMode::Ftz`]: Shader Model 4 and 5
    /// flush 32-bit float denormals in arithmetic (D3D11.3 §3.1, floating-point rules;
    /// moves and bit operations keep bits).
    pub(super) fn read(
        p: &Program,
        refl: &Reflection<'_>,
        b: &mut Builder,
    ) -> Result<Decls, LowerError> {
        let rdef = refl.rdef;
        let stage = b.shader().stage;
        let compute = stage == Stage::Compute;
        let mut d = Decls::new(stage, p.is_sm51());
        b.shader_mut().fp32_denorm = DenormMode::Ftz;
        let counters = counter_uses(p);
        let mut group = None;
        let mut indexable_registers = 0u32;
        for (i, inst) in p.instructions.iter().enumerate() {
            let decl = match &inst.kind {
                InstructionKind::Declaration(decl) => decl,
                InstructionKind::CustomData(CustomData::ImmediateConstantBuffer(v)) => {
                    if d.icb.is_some() {
                        return Err(invalid_at(
                            p,
                            i,
                            "a second immediate constant buffer".into(),
                        ));
                    }
                    let words: Vec<u32> = v.iter().flatten().copied().collect();
                    let id = ConstId(u32::try_from(b.shader().const_arrays.len()).unwrap_or(0));
                    b.shader_mut().const_arrays.push(ConstArray {
                        words: words.clone(),
                        name: "icb".into(),
                    });
                    let elements = u32::try_from(v.len()).unwrap_or(u32::MAX);
                    d.icb = Some((id, elements, words));
                    continue;
                }
                InstructionKind::HullPhase(phase) if stage == Stage::Hull => {
                    d.tess.phase = Some(*phase);
                    continue;
                }
                InstructionKind::HullPhase(_) => {
                    return Err(invalid_at(
                        p,
                        i,
                        format!("a hull shader phase in a {stage} program"),
                    ));
                }
                _ => continue,
            };
            use Declaration as D;
            match decl {
                D::Temps { .. } => {}
                D::GlobalFlags(flags) => {
                    // `[earlydepthstencil]`: the depth and stencil tests run before the
                    // program even when it writes UAVs (D3D11.3 §16.4, "forceEarlyDepthStencil").
                    if stage == Stage::Pixel
                        && flags.contains(GlobalFlags::FORCE_EARLY_DEPTH_STENCIL)
                    {
                        b.shader_mut().early_depth_stencil = true;
                    }
                }
                D::IndexRange { register, count } if !compute => {
                    let patch = register.register == RegisterType::InputPatchConstant
                        || (register.register == RegisterType::Output
                            && matches!(d.tess.phase, Some(HullPhase::Fork | HullPhase::Join)));
                    let output = match register.register {
                        RegisterType::Input => false,
                        RegisterType::Output => true,
                        RegisterType::InputPatchConstant
                            if matches!(stage, Stage::Hull | Stage::Domain) =>
                        {
                            false
                        }
                        other => {
                            return Err(invalid_at(
                                p,
                                i,
                                format!("dcl_indexrange of register {}", other.name()),
                            ));
                        }
                    };
                    let first = register.register_number().ok_or_else(|| {
                        invalid_at(p, i, "dcl_indexrange without a register number".into())
                    })?;
                    d.index_ranges.push(IndexRange {
                        output,
                        first,
                        count: *count,
                        patch,
                    });
                }
                D::IndexRange { .. } => {}
                D::Input { register } if !compute => {
                    d.io_decl(p, i, register, false, None, None)?;
                }
                D::InputSgv { register, name } | D::InputSiv { register, name } if !compute => {
                    d.io_decl(p, i, register, false, Some(*name), None)?;
                }
                D::InputPs {
                    register,
                    interpolation,
                } if stage == Stage::Pixel => {
                    d.io_decl(p, i, register, false, None, Some(*interpolation))?;
                }
                D::InputPsSgv { register, name } if stage == Stage::Pixel => {
                    d.io_decl(p, i, register, false, Some(*name), None)?;
                }
                D::InputPsSiv {
                    register,
                    interpolation,
                    name,
                } if stage == Stage::Pixel => {
                    d.io_decl(p, i, register, false, Some(*name), Some(*interpolation))?;
                }
                D::Output { register } if !compute => {
                    d.io_decl(p, i, register, true, None, None)?;
                }
                D::OutputSgv { register, name } | D::OutputSiv { register, name } if !compute => {
                    d.io_decl(p, i, register, true, Some(*name), None)?;
                }
                D::Resource {
                    register,
                    range,
                    dimension,
                    return_types,
                    ..
                } => {
                    let kind = typed_kind(*dimension).ok_or_else(|| {
                        invalid_at(
                            p,
                            i,
                            format!("resource of dimension {}", dimension.fxc_name()),
                        )
                    })?;
                    let [x, ..] = *return_types;
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        kind,
                        component_type(x),
                        (false, false, false),
                    )?;
                }
                D::ResourceRaw { register, range } => {
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        ResourceKind::RawBuffer,
                        ComponentType::Mixed,
                        (false, false, false),
                    )?;
                }
                D::ResourceStructured {
                    register,
                    range,
                    stride,
                } => {
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        ResourceKind::StructuredBuffer { stride: *stride },
                        ComponentType::Mixed,
                        (false, false, false),
                    )?;
                }
                D::UavTyped {
                    register,
                    range,
                    dimension,
                    return_types,
                    flags,
                } => {
                    let kind = typed_kind(*dimension).ok_or_else(|| {
                        invalid_at(p, i, format!("UAV of dimension {}", dimension.fxc_name()))
                    })?;
                    let [x, ..] = *return_types;
                    let counter = counters.contains(&range.id);
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        kind,
                        component_type(x),
                        (flags.globally_coherent, flags.rasterizer_ordered, counter),
                    )?;
                }
                D::UavRaw {
                    register,
                    range,
                    flags,
                } => {
                    let counter = counters.contains(&range.id);
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        ResourceKind::RawBuffer,
                        ComponentType::Mixed,
                        (flags.globally_coherent, flags.rasterizer_ordered, counter),
                    )?;
                }
                D::UavStructured {
                    register,
                    range,
                    stride,
                    flags,
                } => {
                    let counter = flags.has_counter
                        || counters.contains(&range.id)
                        || rdef_counter(rdef, range.space, range.lower);
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        ResourceKind::StructuredBuffer { stride: *stride },
                        ComponentType::Mixed,
                        (flags.globally_coherent, flags.rasterizer_ordered, counter),
                    )?;
                }
                D::ConstantBuffer {
                    register,
                    range,
                    size,
                    ..
                } => {
                    let size = size.checked_mul(16).ok_or_else(|| {
                        invalid_at(p, i, format!("constant buffer of {size} vectors"))
                    })?;
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        ResourceKind::ConstantBuffer { size },
                        ComponentType::Mixed,
                        (false, false, false),
                    )?;
                }
                D::Sampler {
                    register,
                    range,
                    mode,
                } => {
                    let comparison = *mode == SamplerMode::Comparison;
                    d.add_range(
                        p,
                        i,
                        b,
                        rdef,
                        register,
                        range,
                        ResourceKind::Sampler { comparison },
                        ComponentType::Mixed,
                        (false, false, false),
                    )?;
                }
                D::Input { register } if compute => {
                    if !is_compute_input(register.register) {
                        return Err(err_at(
                            p,
                            i,
                            format!(
                                "input register {} in a compute program",
                                register.register.name()
                            ),
                        ));
                    }
                    d.input_locs
                        .entry(register.register)
                        .or_insert(loc_of(p, i));
                }
                D::ThreadGroup { x, y, z } if compute => {
                    let max = if p.version.major >= 5 {
                        MAX_GROUP_5
                    } else {
                        MAX_GROUP_4
                    };
                    let [mx, my, mz, mt] = max;
                    let total = u64::from(*x)
                        .saturating_mul(u64::from(*y))
                        .saturating_mul(u64::from(*z));
                    if *x == 0
                        || *y == 0
                        || *z == 0
                        || *x > mx
                        || *y > my
                        || *z > mz
                        || total > u64::from(mt)
                    {
                        return Err(invalid_at(
                            p,
                            i,
                            format!(
                                "thread group [{x}, {y}, {z}] is outside {}'s limits (x, y ≤ {mx}, z ≤ {mz}, {mt} threads)",
                                p.version
                            ),
                        ));
                    }
                    group = Some([*x, *y, *z]);
                }
                D::IndexableTemp {
                    index,
                    size,
                    components,
                } => {
                    if !(1..=4).contains(components) {
                        return Err(invalid_at(
                            p,
                            i,
                            format!("x{index} has {components} components"),
                        ));
                    }
                    indexable_registers = indexable_registers.saturating_add(*size);
                    if indexable_registers > MAX_INDEXABLE_REGISTERS {
                        return Err(invalid_at(
                            p,
                            i,
                            format!(
                                "more than {MAX_INDEXABLE_REGISTERS} indexable temporary registers"
                            ),
                        ));
                    }
                    if d.locals.contains_key(index) {
                        return Err(invalid_at(p, i, format!("x{index} is declared twice")));
                    }
                    let id = LocalId(u32::try_from(b.shader().locals.len()).unwrap_or(0));
                    b.shader_mut().locals.push(LocalArray {
                        bytes: size.saturating_mul(16),
                        name: format!("x{index}"),
                    });
                    d.locals.insert(
                        *index,
                        Local {
                            id,
                            elements: *size,
                        },
                    );
                }
                D::TgsmRaw {
                    register,
                    byte_count,
                } if compute => {
                    d.add_tgsm(p, i, b, register, *byte_count, 0, 0)?;
                }
                D::TgsmStructured {
                    register,
                    stride,
                    count,
                } if compute => {
                    let size = stride.checked_mul(*count).unwrap_or(u32::MAX);
                    d.add_tgsm(p, i, b, register, size, *stride, *count)?;
                }
                D::GsInputPrimitive(prim) if stage == Stage::Geometry => {
                    d.gs.input = Some((*prim, i));
                    d.gs.vertices = prim.vertex_count().max(1);
                }
                D::GsOutputTopology(t) if stage == Stage::Geometry => d.gs.output = Some((*t, i)),
                D::MaxOutputVertexCount(n) if stage == Stage::Geometry => d.gs.max = Some((*n, i)),
                D::GsInstanceCount(n) if stage == Stage::Geometry => {
                    d.gs.instances = Some((*n, i));
                }
                D::InputControlPointCount(n) if matches!(stage, Stage::Hull | Stage::Domain) => {
                    d.tess.points_in = Some((*n, i));
                }
                D::OutputControlPointCount(n) if stage == Stage::Hull => {
                    d.tess.points_out = Some((*n, i));
                }
                D::TessDomain(t) if matches!(stage, Stage::Hull | Stage::Domain) => {
                    d.tess.domain = Some((*t, i));
                }
                D::TessPartitioning(t) if stage == Stage::Hull => {
                    d.tess.partitioning = Some((*t, i));
                }
                D::TessOutputPrimitive(t) if stage == Stage::Hull => {
                    d.tess.output = Some((*t, i));
                }
                D::HsMaxTessFactor(f) if stage == Stage::Hull => d.tess.max_factor = Some(*f),
                // The phases' instance counts are read with the phases (`hull`).
                D::HsForkPhaseInstanceCount(_) | D::HsJoinPhaseInstanceCount(_)
                    if stage == Stage::Hull => {}
                // Streams need no state: `emit_stream m#` names its own.
                D::Stream { .. } if stage == Stage::Geometry => {}
                D::FunctionBody(_) | D::FunctionTable { .. } | D::Interface(_) => {
                    return Err(err_at(
                        p,
                        i,
                        "class linkage (dcl_function_body, dcl_function_table, dcl_interface)"
                            .into(),
                    ));
                }
                other => {
                    let what = declaration_opcode(other).map_or_else(
                        || "declaration".to_string(),
                        |op| format!("declaration {}", op.mnemonic()),
                    );
                    return Err(err_at(p, i, format!("{what} in a {stage} program")));
                }
            }
        }
        if compute {
            let group = group.ok_or_else(|| LowerError::Invalid {
                message: "a compute program without dcl_thread_group".into(),
                location: "the program's declarations".into(),
            })?;
            b.shader_mut().thread_group = group;
        } else {
            b.shader_mut().thread_group = [0; 3];
            let specials = d.specials(p);
            let src = IoSource {
                p,
                stage,
                decls: &d.io_decls,
                ranges: &d.index_ranges,
                specials: &specials,
                inputs: refl.inputs,
                outputs: refl.outputs,
                vertices: d.gs.vertices,
            };
            if matches!(stage, Stage::Hull | Stage::Domain) {
                let src = IoSource {
                    vertices: d.tess.points_in.map_or(1, |(n, _)| n.max(1)),
                    ..src
                };
                let points_out = d.tess.points_out.map_or(0, |(n, _)| n);
                let (io, words) = io::patch_layout(&src, refl.patch, points_out, b)?;
                d.io = io;
                d.tess.words = words;
                super::hull::state(p, &d, b)?;
            } else {
                d.io = io::layout(&src, b)?;
            }
            if stage == Stage::Geometry {
                let g = geometry_state(p, &d)?;
                b.shader_mut().geometry = Some(g);
            }
        }
        Ok(d)
    }

    /// Records a vertex or pixel program's input or output declaration.
    fn io_decl(
        &mut self,
        p: &Program,
        i: usize,
        register: &Operand,
        output: bool,
        sv: Option<SystemName>,
        interp: Option<Interpolation>,
    ) -> Result<(), LowerError> {
        let r = register.register;
        if matches!(self.stage, Stage::Hull | Stage::Domain) {
            return self.patch_decl(p, i, register, output, sv);
        }
        let expected = if output {
            RegisterType::Output
        } else {
            RegisterType::Input
        };
        let number = if r == expected && !output && self.stage == Stage::Geometry {
            // `v[vertices][register]`: the register is the second index.
            Some(
                register
                    .index(1)
                    .and_then(crate::dxbc::Index::immediate)
                    .ok_or_else(|| {
                        invalid_at(
                            p,
                            i,
                            "a geometry input declaration without v[vertices][register]".into(),
                        )
                    })?,
            )
        } else if r == expected {
            Some(register.register_number().ok_or_else(|| {
                invalid_at(
                    p,
                    i,
                    format!("an {} declaration without a register number", r.name()),
                )
            })?)
        } else if io::special_side(r) == Some(output) && io::special_in(self.stage, r) {
            None
        } else {
            return Err(err_at(
                p,
                i,
                format!(
                    "{} register {} in a {} program",
                    if output { "output" } else { "input" },
                    r.name(),
                    self.stage
                ),
            ));
        };
        let mask = match register.components {
            Components::Mask(m) => m.0 & 0xf,
            _ => 1,
        };
        self.io_decls.push(IoDecl {
            output,
            register: r,
            number,
            mask,
            sv,
            interp,
            at: i,
            patch: false,
        });
        Ok(())
    }

    /// Records a hull or domain program's input or output declaration: `v[k][n]` and
    /// `vicp[k][n]` declare control-point register `n`; `vpc#` and the `o#` of a fork or
    /// join phase are patch constants; `vOutputControlPointID` and `vPrim` are
    /// registerless inputs; `vocp`, `vDomain`, `vForkInstanceID` and `vJoinInstanceID`
    /// need no element (their words are the layout's, or the lowering's constants).
    fn patch_decl(
        &mut self,
        p: &Program,
        i: usize,
        register: &Operand,
        output: bool,
        sv: Option<SystemName>,
    ) -> Result<(), LowerError> {
        use RegisterType as R;
        let r = register.register;
        let fork_or_join = matches!(self.tess.phase, Some(HullPhase::Fork | HullPhase::Join));
        let (number, patch) = match (r, output) {
            (R::InputForkInstanceId | R::InputJoinInstanceId | R::OutputControlPoint, false)
                if self.stage == Stage::Hull =>
            {
                return Ok(());
            }
            (R::InputDomainPoint, false) if self.stage == Stage::Domain => return Ok(()),
            (R::Input | R::InputControlPoint, false) => (
                Some(
                    register
                        .index(1)
                        .and_then(crate::dxbc::Index::immediate)
                        .ok_or_else(|| {
                            invalid_at(
                                p,
                                i,
                                format!(
                                    "a control-point input declaration ({}) without [points][register]",
                                    r.name()
                                ),
                            )
                        })?,
                ),
                false,
            ),
            (R::InputPatchConstant, false) => (register.register_number(), true),
            (R::Output, true) => (register.register_number(), fork_or_join),
            (r, _) if io::special_side(r) == Some(output) && io::special_in(self.stage, r) => {
                (None, false)
            }
            (r, _) => {
                return Err(err_at(
                    p,
                    i,
                    format!(
                        "{} register {} in a {} program",
                        if output { "output" } else { "input" },
                        r.name(),
                        self.stage
                    ),
                ));
            }
        };
        if number.is_none() && matches!(r, R::Output | R::InputPatchConstant) {
            return Err(invalid_at(
                p,
                i,
                format!("an {} declaration without a register number", r.name()),
            ));
        }
        let mask = match register.components {
            Components::Mask(m) => m.0 & 0xf,
            _ => 1,
        };
        self.io_decls.push(IoDecl {
            output,
            register: r,
            number,
            mask,
            sv,
            interp: None,
            at: i,
            patch,
        });
        Ok(())
    }

    /// The registerless pixel inputs and outputs the program declares or uses.
    fn specials(&self, p: &Program) -> BTreeSet<RegisterType> {
        let mut out: BTreeSet<RegisterType> = self
            .io_decls
            .iter()
            .filter(|d| d.number.is_none())
            .map(|d| d.register)
            .collect();
        if matches!(
            self.stage,
            Stage::Pixel | Stage::Geometry | Stage::Hull | Stage::Domain
        ) {
            for (_, e) in p.executables() {
                for op in e.operands(p) {
                    if io::special_in(self.stage, op.register) {
                        out.insert(op.register);
                    }
                }
            }
        }
        out
    }

    /// Adds a resource range for a binding declaration.
    #[allow(clippy::too_many_arguments)]
    fn add_range(
        &mut self,
        p: &Program,
        i: usize,
        b: &mut Builder,
        rdef: Option<&Rdef>,
        register: &Operand,
        range: &BindingRange,
        kind: ResourceKind,
        component: ComponentType,
        (globally_coherent, rasterizer_ordered, counter): (bool, bool, bool),
    ) -> Result<(), LowerError> {
        let class = class_of(register.register).ok_or_else(|| {
            invalid_at(
                p,
                i,
                format!(
                    "a binding declaration of register {}",
                    register.register.name()
                ),
            )
        })?;
        let key = (register.register, range.id);
        if self.ranges.contains_key(&key) {
            return Err(invalid_at(
                p,
                i,
                format!("{}{} is declared twice", class.letter(), range.id),
            ));
        }
        let count = if range.is_unbounded() {
            ResourceRange::UNBOUNDED
        } else {
            range
                .upper
                .checked_sub(range.lower)
                .and_then(|n| n.checked_add(1))
                .filter(|n| *n != ResourceRange::UNBOUNDED)
                .ok_or_else(|| {
                    invalid_at(
                        p,
                        i,
                        format!(
                            "binding range {}..{} is empty or too large",
                            range.lower, range.upper
                        ),
                    )
                })?
        };
        let id = RangeId(u32::try_from(b.shader().resources.len()).unwrap_or(u32::MAX));
        b.shader_mut().resources.push(ResourceRange {
            class,
            space: range.space,
            lower: range.lower,
            count,
            kind,
            component,
            name: rdef_name(rdef, class, range.space, range.lower),
            counter,
            globally_coherent,
            rasterizer_ordered,
        });
        self.ranges.insert(
            key,
            RangeInfo {
                id,
                lower: range.lower,
                kind,
            },
        );
        self.range_locs.insert(id, loc_of(p, i));
        Ok(())
    }

    /// Adds a group shared memory region after the ones declared before it.
    #[allow(clippy::too_many_arguments)]
    fn add_tgsm(
        &mut self,
        p: &Program,
        i: usize,
        b: &mut Builder,
        register: &Operand,
        size: u32,
        stride: u32,
        count: u32,
    ) -> Result<(), LowerError> {
        let g = register
            .register_number()
            .ok_or_else(|| invalid_at(p, i, "a g# declaration without a number".into()))?;
        if self.tgsm.contains_key(&g) {
            return Err(invalid_at(p, i, format!("g{g} is declared twice")));
        }
        let base = b.shader().groupshared_bytes;
        let limit = if p.version.major >= 5 {
            MAX_GROUPSHARED_BYTES
        } else {
            MAX_GROUPSHARED_BYTES_4
        };
        let end = base
            .checked_add(size)
            .filter(|e| *e <= limit && size % 4 == 0)
            .ok_or_else(|| {
                invalid_at(
                    p,
                    i,
                    format!(
                        "g{g} of {size} bytes: {}'s group shared memory is limited to {limit} bytes in multiples of 4",
                        p.version
                    ),
                )
            })?;
        b.shader_mut().groupshared_bytes = end;
        self.tgsm.insert(
            g,
            Tgsm {
                base,
                size,
                stride,
                count,
            },
        );
        Ok(())
    }
}

/// The opcode of a declaration, for messages.
fn declaration_opcode(d: &Declaration) -> Option<Opcode> {
    use Declaration as D;
    Some(match d {
        D::InputSgv { .. } => Opcode::DclInputSgv,
        D::InputSiv { .. } => Opcode::DclInputSiv,
        D::InputPs { .. } => Opcode::DclInputPs,
        D::InputPsSgv { .. } => Opcode::DclInputPsSgv,
        D::InputPsSiv { .. } => Opcode::DclInputPsSiv,
        D::Output { .. } => Opcode::DclOutput,
        D::OutputSgv { .. } => Opcode::DclOutputSgv,
        D::OutputSiv { .. } => Opcode::DclOutputSiv,
        D::GsInputPrimitive(_) => Opcode::DclGsInputPrimitive,
        D::GsOutputTopology(_) => Opcode::DclGsOutputPrimitiveTopology,
        D::MaxOutputVertexCount(_) => Opcode::DclMaxOutputVertexCount,
        D::GsInstanceCount(_) => Opcode::DclGsInstanceCount,
        D::Stream { .. } => Opcode::DclStream,
        D::InputControlPointCount(_) => Opcode::DclInputControlPointCount,
        D::OutputControlPointCount(_) => Opcode::DclOutputControlPointCount,
        D::TessDomain(_) => Opcode::DclTessDomain,
        D::TessPartitioning(_) => Opcode::DclTessPartitioning,
        D::TessOutputPrimitive(_) => Opcode::DclTessOutputPrimitive,
        D::HsMaxTessFactor(_) => Opcode::DclHsMaxTessFactor,
        D::HsForkPhaseInstanceCount(_) => Opcode::DclHsForkPhaseInstanceCount,
        D::HsJoinPhaseInstanceCount(_) => Opcode::DclHsJoinPhaseInstanceCount,
        _ => return None,
    })
}

/// The UAV ids that `imm_atomic_alloc`/`imm_atomic_consume` use (their hidden counters).
fn counter_uses(p: &Program) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for (_, e) in p.executables() {
        if matches!(e.opcode, Opcode::ImmAtomicAlloc | Opcode::ImmAtomicConsume)
            && let Some(op) = e.sources(p).first()
            && op.register == RegisterType::UnorderedAccessView
            && let Some(id) = op.register_number()
        {
            out.insert(id);
        }
    }
    out
}

impl Lowerer<'_> {
    /// The entry block: the compute inputs the program reads and the handles of every
    /// resource it names with an immediate index, each made once.
    pub(super) fn prologue(&mut self) -> Result<(), LowerError> {
        let p = self.p;
        let mut inputs: BTreeSet<RegisterType> = self.d.input_locs.keys().copied().collect();
        let mut handles: BTreeSet<(RangeId, u32)> = BTreeSet::new();
        for (_, e) in p.executables() {
            for op in e.operands(p) {
                let mut regs = vec![op.register];
                for idx in op.indices() {
                    if let Index::Relative { register, .. } = idx {
                        regs.push(register.register);
                    }
                }
                if self.d.stage == Stage::Compute {
                    inputs.extend(regs.into_iter().filter(|r| is_compute_input(*r)));
                }
                if class_of(op.register).is_none() {
                    continue;
                }
                let Some(id) = op.register_number() else {
                    continue;
                };
                let Some(info) = self.d.ranges.get(&(op.register, id)) else {
                    continue;
                };
                if !self.d.sm51 {
                    handles.insert((info.id, 0));
                } else if let Some(Index::Immediate(v)) = op.index(1) {
                    handles.insert((info.id, v.wrapping_sub(info.lower)));
                }
            }
        }
        for r in inputs {
            let loc = self
                .d
                .input_locs
                .get(&r)
                .copied()
                .unwrap_or(SourceLoc::None);
            self.b.set_loc(loc);
            let regs = if r == RegisterType::InputThreadIdInGroupFlattened {
                let dst = self.b.temp();
                self.b.emit(Inst::GroupIndex { dst });
                [dst; 3]
            } else {
                let sv = match r {
                    RegisterType::InputThreadId => SysVec::ThreadId,
                    RegisterType::InputThreadGroupId => SysVec::GroupId,
                    _ => SysVec::GroupThreadId,
                };
                let base = self.b.temps(3);
                let mut regs = [base; 3];
                for (axis, slot) in (0u8..).zip(regs.iter_mut()) {
                    *slot = Reg(base.0.wrapping_add(u32::from(axis)));
                    self.b.emit(Inst::SysValue {
                        sv,
                        axis,
                        dst: *slot,
                    });
                }
                regs
            };
            // The debugger's source map: the input's components by its listing name.
            let name = match r {
                RegisterType::InputThreadId => "vThreadID",
                RegisterType::InputThreadGroupId => "vThreadGroupID",
                RegisterType::InputThreadIdInGroupFlattened => "vThreadIDInGroupFlattened",
                _ => "vThreadIDInGroup",
            };
            self.b
                .name_regs(crate::ir::VarKey::DxbcInput(name.into()), regs.to_vec());
            self.d.inputs.insert(r, regs);
        }
        for (range, index) in handles {
            let loc = self
                .d
                .range_locs
                .get(&range)
                .copied()
                .unwrap_or(SourceLoc::None);
            self.b.set_loc(loc);
            let dst = self.b.temp();
            let index_reg = self.b.konst(index);
            self.b.emit(Inst::Handle {
                dst,
                range,
                index: index_reg,
            });
            self.d.handles.insert((range, index), dst);
        }
        self.b.set_loc(SourceLoc::None);
        Ok(())
    }
}
