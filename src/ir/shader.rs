//! A lowered shader: its blocks, instructions, registers, memories and resource ranges.

use std::fmt;

use super::ids::{BlockId, ConstId, InstId, LocalId, Reg};
use super::inst::Inst;
use super::io::{DomainState, GeometryState, HullState, IoElement, MeshState, RayState, SysValue};
use super::operand::word_enum;

word_enum!(
    /// The pipeline stage a shader runs in.
    Stage {
        /// Compute.
        Compute = "compute",
        /// Pixel.
        Pixel = "pixel",
        /// Vertex.
        Vertex = "vertex",
        /// Geometry.
        Geometry = "geometry",
        /// Hull.
        Hull = "hull",
        /// Domain.
        Domain = "domain",
        /// Mesh.
        Mesh = "mesh",
        /// Amplification.
        Amplification = "amplification",
        /// DXR ray generation (`[shader("raygeneration")]`).
        RayGeneration = "raygeneration",
        /// DXR intersection.
        Intersection = "intersection",
        /// DXR any hit.
        AnyHit = "anyhit",
        /// DXR closest hit.
        ClosestHit = "closesthit",
        /// DXR miss.
        Miss = "miss",
        /// DXR callable.
        Callable = "callable",
    }
);

impl Stage {
    /// The stage in the words reports use: DXR's stages as the DirectX Raytracing
    /// specification writes them (`closest-hit`, `ray-generation`), the others by their
    /// own name (which is also their text form).
    pub fn words(self) -> &'static str {
        match self {
            Stage::RayGeneration => "ray-generation",
            Stage::ClosestHit => "closest-hit",
            Stage::AnyHit => "any-hit",
            Stage::Intersection => "intersection",
            Stage::Miss => "miss",
            Stage::Callable => "callable",
            other => other.word(),
        }
    }

    /// Whether the stage is one of DXR's ray-tracing stages, which run only inside
    /// `DispatchRays` (their programs read [`RayState`](super::RayState)'s memory).
    pub fn is_ray_tracing(self) -> bool {
        matches!(
            self,
            Stage::RayGeneration
                | Stage::Intersection
                | Stage::AnyHit
                | Stage::ClosestHit
                | Stage::Miss
                | Stage::Callable
        )
    }
}

word_enum!(
    /// How 32-bit float arithmetic treats denormal values (DXIL `fp32-denorm-mode`;
    /// DXBC programs always flush, D3D11.3 §3.1).
    DenormMode {
        /// Flush denormal inputs and outputs to zero of the same sign.
        Ftz = "ftz",
        /// Keep denormals.
        Preserve = "preserve",
        /// Implementation's choice (`any`); WARP flushes.
        Any = "any",
    }
);

word_enum!(
    /// Which register class of a binding a resource range occupies.
    ResourceClass {
        /// Shader resource view (`t#`).
        Srv = "srv",
        /// Unordered access view (`u#`).
        Uav = "uav",
        /// Constant buffer view (`b#`).
        Cbv = "cbv",
        /// Sampler (`s#`).
        Sampler = "sampler",
    }
);

impl ResourceClass {
    /// The register letter of the class (`t`, `u`, `b`, `s`).
    pub fn letter(self) -> char {
        match self {
            ResourceClass::Srv => 't',
            ResourceClass::Uav => 'u',
            ResourceClass::Cbv => 'b',
            ResourceClass::Sampler => 's',
        }
    }
}

word_enum!(
    /// How the elements of a typed view are interpreted when read through the shader.
    ComponentType {
        /// 32-bit float (any float, UNORM, SNORM format read as float).
        Float = "float",
        /// Signed integer.
        SInt = "sint",
        /// Unsigned integer.
        UInt = "uint",
        /// UNORM float.
        UNorm = "unorm",
        /// SNORM float.
        SNorm = "snorm",
        /// 64-bit float (two channels of R32G32_UINT).
        Double = "double",
        /// Mixed or unspecified.
        Mixed = "mixed",
    }
);

/// The shape of a resource a range binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// Byte-address buffer.
    RawBuffer,
    /// Structured buffer with the given element stride in bytes.
    StructuredBuffer {
        /// Element stride in bytes.
        stride: u32,
    },
    /// Typed buffer (`Buffer<T>`, `RWBuffer<T>`).
    TypedBuffer,
    /// 1D texture.
    Texture1D,
    /// 1D texture array.
    Texture1DArray,
    /// 2D texture.
    Texture2D,
    /// 2D texture array.
    Texture2DArray,
    /// Multisampled 2D texture.
    Texture2DMS,
    /// Multisampled 2D texture array.
    Texture2DMSArray,
    /// 3D texture.
    Texture3D,
    /// Cube texture.
    TextureCube,
    /// Cube texture array.
    TextureCubeArray,
    /// Constant buffer of the given size in bytes (0 when unknown).
    ConstantBuffer {
        /// Size in bytes.
        size: u32,
    },
    /// Sampler; `comparison` for `SamplerComparisonState`.
    Sampler {
        /// Whether it is a comparison sampler.
        comparison: bool,
    },
    /// Ray-tracing acceleration structure.
    AccelerationStructure,
    /// Sampler feedback map paired with a 2D texture (`FeedbackTexture2D<T>`):
    /// `SAMPLER_FEEDBACK_MIP_REGION_USED` when `mip_region_used`, else
    /// `SAMPLER_FEEDBACK_MIN_MIP`. Written only by `write_feedback`.
    FeedbackTexture2D {
        /// Whether it records MipRegionUsed (else MinMip).
        mip_region_used: bool,
    },
    /// Sampler feedback map paired with a 2D texture array (`FeedbackTexture2DArray<T>`).
    FeedbackTexture2DArray {
        /// Whether it records MipRegionUsed (else MinMip).
        mip_region_used: bool,
    },
}

impl ResourceKind {
    /// The name the job file uses for this kind (`structured_buffer`, `texture2d`, …).
    pub fn job_name(&self) -> &'static str {
        match self {
            ResourceKind::RawBuffer => "raw_buffer",
            ResourceKind::StructuredBuffer { .. } => "structured_buffer",
            ResourceKind::TypedBuffer => "typed_buffer",
            ResourceKind::Texture1D => "texture1d",
            ResourceKind::Texture1DArray => "texture1darray",
            ResourceKind::Texture2D => "texture2d",
            ResourceKind::Texture2DArray => "texture2darray",
            ResourceKind::Texture2DMS => "texture2dms",
            ResourceKind::Texture2DMSArray => "texture2dmsarray",
            ResourceKind::Texture3D => "texture3d",
            ResourceKind::TextureCube => "texturecube",
            ResourceKind::TextureCubeArray => "texturecubearray",
            ResourceKind::ConstantBuffer { .. } => "cbuffer",
            ResourceKind::Sampler { .. } => "sampler",
            ResourceKind::AccelerationStructure => "acceleration_structure",
            ResourceKind::FeedbackTexture2D { .. } => "feedback_texture2d",
            ResourceKind::FeedbackTexture2DArray { .. } => "feedback_texture2darray",
        }
    }

    /// Whether this is a sampler feedback map; `Some(mip_region_used)` when it is.
    pub fn feedback(&self) -> Option<bool> {
        match self {
            ResourceKind::FeedbackTexture2D { mip_region_used }
            | ResourceKind::FeedbackTexture2DArray { mip_region_used } => Some(*mip_region_used),
            _ => None,
        }
    }

    /// Whether this is a texture of any dimension.
    pub fn is_texture(&self) -> bool {
        !matches!(
            self,
            ResourceKind::RawBuffer
                | ResourceKind::StructuredBuffer { .. }
                | ResourceKind::TypedBuffer
                | ResourceKind::ConstantBuffer { .. }
                | ResourceKind::Sampler { .. }
                | ResourceKind::AccelerationStructure
                | ResourceKind::FeedbackTexture2D { .. }
                | ResourceKind::FeedbackTexture2DArray { .. }
        )
    }
}

impl fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceKind::StructuredBuffer { stride } => {
                write!(f, "structured_buffer(stride {stride})")
            }
            ResourceKind::ConstantBuffer { size } => write!(f, "cbuffer(size {size})"),
            ResourceKind::Sampler { comparison: true } => f.write_str("sampler(comparison)"),
            ResourceKind::FeedbackTexture2D { mip_region_used }
            | ResourceKind::FeedbackTexture2DArray { mip_region_used } => write!(
                f,
                "{}({})",
                self.job_name(),
                if *mip_region_used {
                    "mip_region_used"
                } else {
                    "min_mip"
                }
            ),
            k => f.write_str(k.job_name()),
        }
    }
}

/// A range of bindings the shader declares: `count` consecutive registers of one class
/// in one space, all of one kind (SM 5.1 resource arrays; one register before 5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRange {
    /// Register class.
    pub class: ResourceClass,
    /// Register space.
    pub space: u32,
    /// First register.
    pub lower: u32,
    /// Number of registers; [`ResourceRange::UNBOUNDED`] for an unbounded array.
    pub count: u32,
    /// Shape.
    pub kind: ResourceKind,
    /// Element interpretation of typed views (per the declaration's return type).
    pub component: ComponentType,
    /// The name the program gives it (reflection), or empty.
    pub name: String,
    /// The UAV has a hidden counter (append/consume/IncrementCounter).
    pub counter: bool,
    /// Globally coherent UAV.
    pub globally_coherent: bool,
    /// Rasterizer-ordered view.
    pub rasterizer_ordered: bool,
}

impl ResourceRange {
    /// `count` of an unbounded range.
    pub const UNBOUNDED: u32 = u32::MAX;

    /// `t3`, `u0..u3`, `b1` (space appended when not 0: `t2, space1`).
    pub fn binding_name(&self) -> String {
        let c = self.class.letter();
        let mut s = if self.count == 1 {
            format!("{c}{}", self.lower)
        } else if self.count == 0 {
            format!("{c}{} (no registers)", self.lower)
        } else if self.count == Self::UNBOUNDED {
            format!("{c}{}..", self.lower)
        } else {
            format!(
                "{c}{}..{c}{}",
                self.lower,
                self.lower.saturating_add(self.count - 1)
            )
        };
        if self.space != 0 {
            s.push_str(&format!(", space{}", self.space));
        }
        s
    }
}

/// A per-lane private array (DXBC indexable temp, DXIL alloca).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalArray {
    /// Size in bytes (a multiple of 4).
    pub bytes: u32,
    /// A name for listings (`x0`, the alloca's name).
    pub name: String,
}

/// A read-only array shared by all lanes (DXBC immediate constant buffer, DXIL constant
/// global arrays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstArray {
    /// The contents as 32-bit words.
    pub words: Vec<u32>,
    /// A name for listings.
    pub name: String,
}

/// Where an IR instruction came from, for the debugger and for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SourceLoc {
    /// Made by the lowering (or written as text), with no single source instruction.
    #[default]
    None,
    /// A DXBC instruction: its index in the program and its token offset.
    Dxbc {
        /// Index of the instruction (declarations included) in the program.
        index: u32,
        /// Token offset of the instruction in the program part.
        token: u32,
    },
    /// A DXIL instruction: its function and its index in the function body.
    Dxil {
        /// Function index in the module.
        function: u32,
        /// Instruction index in the function body.
        inst: u32,
    },
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceLoc::None => f.write_str("-"),
            SourceLoc::Dxbc { index, token } => {
                write!(f, "dxbc instruction {index} (token 0x{token:x})")
            }
            SourceLoc::Dxil { function, inst } => {
                write!(f, "dxil function {function} instruction {inst}")
            }
        }
    }
}

/// What the source program calls a value the IR holds in registers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarKey {
    /// DXBC temporary `r{n}`; its registers are components x, y, z, w.
    DxbcTemp(u32),
    /// A DXBC input register by its listing name (`vThreadID`); registers per component.
    DxbcInput(String),
    /// A DXIL value (an instruction's result) of a function, by value id; one register
    /// per leaf (the first of a pair for 64-bit leaves).
    DxilValue {
        /// Function index in the module.
        function: u32,
        /// The value's id.
        value: u32,
    },
}

/// A source-program value and the IR registers that hold it: the debugger's map from
/// the program's names to the IR. Made by the unoptimised lowering and emptied by the
/// clean-up passes (`ir::opt`), which coalesce registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceVar {
    /// The value.
    pub key: VarKey,
    /// Its registers.
    pub regs: Vec<Reg>,
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terminator {
    /// Continue at the block.
    Jump(BlockId),
    /// Continue at `then_` where `cond != 0`, else at `else_`.
    Branch {
        /// The condition register.
        cond: Reg,
        /// Target for lanes where `cond != 0`.
        then_: BlockId,
        /// Target for lanes where `cond == 0`.
        else_: BlockId,
    },
    /// Continue at the case whose value equals `sel`, else at `default`.
    Switch {
        /// The selector register.
        sel: Reg,
        /// `(value, target)` pairs; values are distinct.
        cases: Vec<(u32, BlockId)>,
        /// Target when no case matches.
        default: BlockId,
    },
    /// The lane is finished.
    Return,
    /// Control never reaches here; a lane that does is an error of the program.
    Unreachable,
}

impl Terminator {
    /// The blocks this terminator may continue at, in order (duplicates possible).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jump(b) => vec![*b],
            Terminator::Branch { then_, else_, .. } => vec![*then_, *else_],
            Terminator::Switch { cases, default, .. } => {
                let mut v: Vec<BlockId> = cases.iter().map(|c| c.1).collect();
                v.push(*default);
                v
            }
            Terminator::Return | Terminator::Unreachable => Vec::new(),
        }
    }

    /// Calls `f` with each successor, mutably (for renumbering).
    pub fn successors_mut(&mut self, mut f: impl FnMut(&mut BlockId)) {
        match self {
            Terminator::Jump(b) => f(b),
            Terminator::Branch { then_, else_, .. } => {
                f(then_);
                f(else_);
            }
            Terminator::Switch { cases, default, .. } => {
                for c in cases {
                    f(&mut c.1);
                }
                f(default);
            }
            Terminator::Return | Terminator::Unreachable => {}
        }
    }

    /// The register the terminator reads, if any.
    pub fn reg(&self) -> Option<Reg> {
        match self {
            Terminator::Branch { cond, .. } => Some(*cond),
            Terminator::Switch { sel, .. } => Some(*sel),
            _ => None,
        }
    }

    /// The register the terminator reads, mutably.
    pub fn reg_mut(&mut self) -> Option<&mut Reg> {
        match self {
            Terminator::Branch { cond, .. } => Some(cond),
            Terminator::Switch { sel, .. } => Some(sel),
            _ => None,
        }
    }
}

/// A basic block: a run of instructions and a terminator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// First instruction (index into [`Shader::insts`]).
    pub start: u32,
    /// One past the last instruction.
    pub end: u32,
    /// How the block ends.
    pub term: Terminator,
    /// Where the terminator came from.
    pub term_loc: SourceLoc,
}

impl Block {
    /// The block's instruction ids.
    pub fn inst_ids(&self) -> impl Iterator<Item = InstId> + use<> {
        (self.start..self.end).map(InstId)
    }

    /// The number of instructions (terminator excluded).
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the block has no instructions besides its terminator.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A `[WaveSize]` requirement (SM 6.6 one value; SM 6.8 a range and a preference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WaveSizeReq {
    /// Smallest wave size the program accepts.
    pub min: u32,
    /// Largest wave size the program accepts.
    pub max: u32,
    /// Preferred size (0 when none).
    pub preferred: u32,
}

/// A whole lowered shader. `ir::validate` checks every invariant listed there; code
/// that runs a shader relies on them.
#[derive(Debug, Clone, PartialEq)]
pub struct Shader {
    /// The stage it runs in.
    pub stage: Stage,
    /// The entry point's name.
    pub entry: String,
    /// `[numthreads]` (compute, mesh, amplification); `[0, 0, 0]` elsewhere.
    pub thread_group: [u32; 3],
    /// `[WaveSize]`, when the program states one.
    pub wave_size: Option<WaveSizeReq>,
    /// 32-bit float denormal handling.
    pub fp32_denorm: DenormMode,
    /// Total registers, at most [`Shader::MAX_REGS`]. Registers `0..consts.len()` are
    /// constants.
    pub num_regs: u32,
    /// Values of the constant registers, which are set before the first instruction and
    /// never written.
    pub consts: Vec<u32>,
    /// Per-lane private arrays.
    pub locals: Vec<LocalArray>,
    /// Read-only shared arrays.
    pub const_arrays: Vec<ConstArray>,
    /// Bytes of group shared memory.
    pub groupshared_bytes: u32,
    /// The resource ranges the shader declares.
    pub resources: Vec<ResourceRange>,
    /// Whether the shader indexes the resource descriptor heap (SM 6.6).
    pub uses_resource_heap: bool,
    /// Whether the shader indexes the sampler descriptor heap (SM 6.6).
    pub uses_sampler_heap: bool,
    /// The stage's input signature elements (empty in compute); see [`crate::ir::io`].
    pub inputs: Vec<IoElement>,
    /// The stage's output signature elements.
    pub outputs: Vec<IoElement>,
    /// Input words per lane (every input element's words are below it).
    pub input_words: u32,
    /// Output words per lane.
    pub output_words: u32,
    /// Pixel shaders: `[earlydepthstencil]` (depth and stencil tests run before the
    /// shader even when it has side effects).
    pub early_depth_stencil: bool,
    /// Pixel shaders: wave operations count helper lanes as active lanes (SM 6.7's
    /// `[WaveOpsIncludeHelperLanes]`; DXIL's `waveops-include-helper-lanes` attribute).
    pub wave_ops_include_helpers: bool,
    /// Geometry programs: the input primitive, output topology, vertex and instance
    /// counts; `None` in every other stage.
    pub geometry: Option<GeometryState>,
    /// Mesh and amplification programs: the output arrays' sizes, topology and payload;
    /// `None` in every other stage.
    pub mesh: Option<MeshState>,
    /// Ray-tracing stages: where the payload (or callable parameter) and the hit
    /// attributes live.
    pub ray: Option<RayState>,
    /// Mesh programs: the per-primitive output elements (words per primitive in
    /// [`MeshState::primitive_words`]); empty in every other stage.
    pub primitive_outputs: Vec<IoElement>,
    /// Geometry programs: every output element of every stream, as `(stream, element)`,
    /// the element's words being those the program's `emit` on that stream captures —
    /// what the stream-output stage looks semantics up in (`pipeline::so`), and what the
    /// pixel program links by when the stream is rasterized (`pipeline::gs::stream_elements`).
    /// Stream 0's elements are those of `outputs`; a DXBC program's later streams reuse the output
    /// registers (`dcl_stream` then `dcl_output`), so their elements share words with
    /// stream 0's, while DXIL gives them words of their own and registers counted from
    /// the stream's first signature row. Empty in every other stage,
    /// and in a geometry program that lists none (then `outputs` are stream 0's).
    pub stream_outputs: Vec<(u32, IoElement)>,
    /// Hull programs: the tessellator state and where each phase's values live; `None`
    /// in every other stage.
    pub hull: Option<HullState>,
    /// Domain programs: the domain and where the patch's values live; `None` in every
    /// other stage.
    pub domain: Option<DomainState>,
    /// The blocks; block 0 is the entry. Ordered so that waves reconverge (see `ir::cfg`).
    pub blocks: Vec<Block>,
    /// All instructions; each block owns a contiguous run.
    pub insts: Vec<Inst>,
    /// Source location of each instruction (same length as `insts`).
    pub locs: Vec<SourceLoc>,
    /// The source program's values and their registers (see [`SourceVar`]); not part of
    /// the text form.
    pub vars: Vec<SourceVar>,
}

impl Shader {
    /// The most registers a program may have (2^20). Every runner holds `num_regs`
    /// words per lane, and analyses keep a flag per register, so the count is bounded
    /// before anything is allocated from it; the largest lowered program of the corpora
    /// uses a small fraction of it.
    pub const MAX_REGS: u32 = 1 << 20;

    /// An empty compute shader with one block that returns.
    pub fn new(stage: Stage) -> Shader {
        Shader {
            stage,
            entry: "main".into(),
            thread_group: [1, 1, 1],
            wave_size: None,
            fp32_denorm: DenormMode::Ftz,
            num_regs: 0,
            consts: Vec::new(),
            locals: Vec::new(),
            const_arrays: Vec::new(),
            groupshared_bytes: 0,
            resources: Vec::new(),
            uses_resource_heap: false,
            uses_sampler_heap: false,
            inputs: Vec::new(),
            outputs: Vec::new(),
            input_words: 0,
            output_words: 0,
            early_depth_stencil: false,
            wave_ops_include_helpers: false,
            geometry: None,
            mesh: None,
            ray: None,
            primitive_outputs: Vec::new(),
            stream_outputs: Vec::new(),
            hull: None,
            domain: None,
            blocks: vec![Block {
                start: 0,
                end: 0,
                term: Terminator::Return,
                term_loc: SourceLoc::None,
            }],
            insts: Vec::new(),
            locs: Vec::new(),
            vars: Vec::new(),
        }
    }

    /// The block with this id.
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }

    /// The instruction with this id.
    pub fn inst(&self, i: InstId) -> &Inst {
        &self.insts[i.index()]
    }

    /// Whether `r` is a constant register.
    pub fn is_const(&self, r: Reg) -> bool {
        r.index() < self.consts.len()
    }

    /// The local array with this id.
    pub fn local(&self, x: LocalId) -> &LocalArray {
        &self.locals[x.index()]
    }

    /// The constant array with this id.
    pub fn const_array(&self, c: ConstId) -> &ConstArray {
        &self.const_arrays[c.index()]
    }

    /// The block that holds instruction `i`.
    pub fn block_of(&self, i: InstId) -> Option<BlockId> {
        self.blocks
            .iter()
            .position(|b| b.start <= i.0 && i.0 < b.end)
            .map(|p| BlockId(p as u32))
    }

    /// The input element carrying system value `sv`, if any.
    pub fn input_sv(&self, sv: SysValue) -> Option<&IoElement> {
        self.inputs.iter().find(|e| e.sv == sv)
    }

    /// The output element carrying system value `sv`, if any.
    pub fn output_sv(&self, sv: SysValue) -> Option<&IoElement> {
        self.outputs.iter().find(|e| e.sv == sv)
    }

    /// Counts instructions by mnemonic (for reports).
    pub fn histogram(&self) -> Vec<(&'static str, usize)> {
        let mut m: std::collections::BTreeMap<&'static str, usize> = Default::default();
        for i in &self.insts {
            *m.entry(i.mnemonic()).or_default() += 1;
        }
        m.into_iter().collect()
    }
}
