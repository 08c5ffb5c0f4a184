//! DXIL (Shader Model 6) → IR.
//!
//! Owns: lowering the entry function of a compute, vertex, pixel, geometry, domain, mesh
//! or amplification program (`cs_6_x`, `vs_6_x`, `ps_6_x`, `gs_6_x`, `ds_6_x`, `ms_6_x`,
//! `as_6_x`, or a library entry of those kinds), the two functions of a hull program
//! (`hs_6_x`), or a library's ray-tracing export (`rays`: chosen by its export name, the
//! MSVC-mangled symbol's first component — [`export_name`]) to an
//! [`ir::Shader`](crate::ir::Shader): the header (stage, thread group, `[WaveSize]`,
//! fp32 denormal mode, `[earlydepthstencil]`, resource ranges, heap use), the vertex and
//! pixel signatures as input and output words (`stage`), SSA values as registers,
//! LLVM's instructions, control flow with phis as parallel copies on edges, memory
//! (allocas, group shared and constant globals) and every `dx.op` operation those
//! stages can use. Everything else is refused at load time with
//! [`LowerError::Unsupported`] naming it and where it is; node programs are refused
//! with the stage's name.
//!
//! Does not own: decoding (see [`crate::dxil`]), the IR's layout and validation (the
//! [`Builder`]), or what instructions do (`exec`).
//!
//! The pieces: `layout` (type sizes and leaves), `resources` (ranges and handle kinds),
//! `func` (values, core instructions, control flow), `memory` (pointers and memory
//! analysis), `ops` (`dx.op` calls), `stage` (signatures, stage inputs and outputs, the
//! pixel pipeline's operations), `geometry` (geometry state, PSV0's geometry words,
//! stream operations), `hull` (hull and domain states, their words and operations; a
//! hull program's two functions behind the phase word), `mesh` (mesh and amplification
//! state and operations), `ray_query` (inline ray queries), `rays` (ray-tracing
//! programs' parameters and DXR operations), `vectors` (SM 6.9 native vectors in
//! `dx.op` calls), `copies` (parallel copies).
//!
//! Source map: every IR instruction carries `SourceLoc::Dxil { function, inst }` of the
//! LLVM instruction it came from (phi copies: the terminator of the edge's source; the
//! stores that initialise non-constant globals: none).
//!
//! # Decisions
//!
//! - **Registers.** Each SSA value gets its own registers, one per leaf (a pair for
//!   64-bit leaves); aggregate and vector operations rename registers instead of copying
//!   (`func`). Phis get registers of their own, written by parallel copies on the edges
//!   into their block; a critical edge gets a block for its copies.
//! - **Narrow types.** `i1` is the IR boolean (0 / 0xffff_ffff): `zext` is `and 1`, `sext`
//!   is free, `add`/`sub` are `xor`, `mul` is `and`. `i8`/`i16` live zero-extended:
//!   wrapping operations are masked, signed ones sign-extend first. `half` values are
//!   their binary16 bits; arithmetic on them widens exactly, computes in float and rounds
//!   to nearest even (`f32tohalf`; WARP's rule, DESIGN "16-bit float math").
//! - **Shifts** use the count's low 5 (64-bit: 6) bits, as the IR and D3D do; LLVM leaves
//!   larger counts undefined and dxc masks HLSL's counts itself.
//! - **Conversions** to narrow integers convert as 32-bit (saturating, NaN → 0) and keep
//!   the low bits; `double → half` rounds twice (through float).
//! - **Dot products** (`Dot2/3/4`, `Dot2AddHalf`) are unfused: each product rounded, then
//!   summed in order. `FMad` is the IR's `fmad` (fused or not by the run's WARP profile),
//!   `fmad_precise` under `dx.precise`; on doubles it is `dfma`.
//! - **FirstbitHi/SHi** count from the MSB in DXIL as in the IR (DXIL.rst: 0x10000000
//!   gives 3); the 16-bit overload counts from bit 15 (`ops`).
//! - **Pointers** are a statically known memory (per-lane array, group shared memory,
//!   constant array) and a byte offset (`memory`); a pointer that may point into two
//!   arrays is refused. Layout follows the module's data layout, vectors by dxc's rule.
//! - **Unused results** are not computed: an instruction without effects runs only when
//!   an instruction with effects (a store, an atomic, a branch, …) depends on it.
//! - **`undef`** operands read 0 (unused `dx.op` operands are `_`).
//! - **Stage words** (`stage`): a signature element at packed row r is word 4·r onward;
//!   unpacked and `NotInSig` system values follow the packed rows; 16-bit elements travel
//!   as 32-bit words, narrowed on load and widened on store.
//! - **`Discard` demotes** the lane to a helper lane (D3D's discard; `IsHelperLane` is
//!   true afterwards and derivatives stay defined); the stage reports the pixel killed.
//! - **`AttributeAtVertex`** is an `eval` at a vertex, answered by the pipeline like the
//!   other `Eval*` operations; `SV_Barycentrics` is an unpacked input element the
//!   pipeline fills. `ViewID` and the SM 6.8 start locations read input elements of their
//!   own.
//! - **`waveops-include-helper-lanes`** (SM 6.7 `[WaveOpsIncludeHelperLanes]`) on a pixel
//!   entry sets the shader's `wave_ops_include_helpers`: its wave operations count helper
//!   lanes as active (`exec::wave_ops`).
//! - **Sampler feedback** (SM 6.5 `WriteSamplerFeedback`, `…Bias`, `…Level`, `…Grad`) is
//!   the IR's `write_feedback` in the sample mode of its counterpart; feedback textures
//!   (resource kinds 17 and 18) are IR kinds of their own, their feedback type from the
//!   metadata's tag 2 or the handle properties' second word (`ops`, `resources`).
//! - **`TextureGatherRaw`** (SM 6.7) is the IR's `gather_raw` of the overload's width; a
//!   64-bit element is gathered as two words and joined (`ops`).
//! - **`WaveMatch` of a vector** (SM 6.9) is the AND of one scalar `wave_match` per
//!   element (`ops`).
//! - **Native vectors** (SM 6.9, DXIL 1.9; DirectX-Specs 0030 "DXIL Vectors") are
//!   scalarized here: an `<N x T>` value is N leaves like any aggregate, a
//!   vector-overloaded elementwise `dx.op` is its scalar lowering once per element,
//!   `RawBufferVectorLoad`/`Store` are `RawBufferLoad`/`Store` of four elements at a
//!   time, `VectorReduceAnd`/`Or` and `FDot` fold the elements in order (`vectors`). A
//!   vector past 1024 elements (0026 "HLSL Long Vectors") is refused before anything is
//!   sized by it. The 16-bit `IsNaN`/`IsInf`/`IsFinite`/`IsNormal` (0038) test the
//!   binary16 bits (`ops`).

#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod copies;
mod func;
mod geometry;
mod hit_object;
mod hull;
pub(crate) mod layout;
mod memory;
mod mesh;
mod ops;
mod ray_query;
mod rays;
mod resources;
mod stage;
#[cfg(test)]
mod tests;
mod vectors;

use std::collections::HashMap;

use super::{LoadOptions, LowerError};
use crate::container::psv0::Psv0;
use crate::container::{Container, ContainerError, DxilProgramHeader, FourCc};
use crate::dxil::llvm::{self, Module};
use crate::dxil::meta::{DxilMetadata, EntryPoint, Property};
use crate::ir::cfg::{self, Cfg, CfgError};
use crate::ir::{Builder, DenormMode, Shader, Stage, WaveSizeReq};
use func::FnLower;

/// The highest shader model dxlane runs (DXIL 1.9's features: DirectX-Specs proposal
/// 0033 "DXIL 1.9"), shown by `dxlane info`.
pub const HIGHEST_SHADER_MODEL: (u8, u8) = (6, 9);

/// What of the shader models up to [`HIGHEST_SHADER_MODEL`] the lowering still refuses,
/// each with the shader model that added it.
pub const REFUSED_FEATURES: &[&str] = &["work graph node programs (6.8)"];

/// The one-line statement of [`HIGHEST_SHADER_MODEL`] and [`REFUSED_FEATURES`].
pub fn runs_statement() -> String {
    let (major, minor) = HIGHEST_SHADER_MODEL;
    format!(
        "Shader Model 4.0–5.1 (DXBC) and 6.0–{major}.{minor} (DXIL), except {}",
        REFUSED_FEATURES.join(", ")
    )
}

/// [`HIGHEST_SHADER_MODEL`] and [`REFUSED_FEATURES`] as `info --json` and every run
/// summary carry them (`dxlane_runs`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Runs {
    /// `major.minor`.
    pub highest_shader_model: String,
    /// [`REFUSED_FEATURES`].
    pub refused: &'static [&'static str],
}

/// The [`Runs`] of this build.
pub fn runs() -> Runs {
    let (major, minor) = HIGHEST_SHADER_MODEL;
    Runs {
        highest_shader_model: format!("{major}.{minor}"),
        refused: REFUSED_FEATURES,
    }
}

/// Lowers the DXIL program of a container.
pub fn lower_container(
    container: &Container<'_>,
    opts: &LoadOptions,
) -> Result<Shader, LowerError> {
    let part = container
        .part(FourCc::DXIL)
        .or_else(|| container.program_part())
        .ok_or(ContainerError::MissingPart(FourCc::DXIL))?;
    let (_, bitcode) = DxilProgramHeader::parse(part)?;
    let m = Module::parse(bitcode).map_err(|e| LowerError::Decode(format!("DXIL module: {e}")))?;
    // The pipeline state words the runtime reads, to cross-check the metadata against
    // (an unreadable PSV0 is `info --check`'s to report, not the lowering's).
    let psv = container
        .part(FourCc(*b"PSV0"))
        .and_then(|p| Psv0::parse(p, None).ok());
    lower_module_with(&m, opts, psv.as_ref())
}

/// One function a DXIL library exports (`lib_6_3` and later): its export name
/// ([`export_name`]) and its stage, from the entry's shader-kind property (`None`: a
/// kind the IR has no stage for, such as a work-graph node, or no kind at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryExport {
    /// The export name (`raygen`).
    pub name: String,
    /// The stage it runs in.
    pub stage: Option<Stage>,
}

/// The entry points with a function of the DXIL module in `container`, in metadata
/// order (a library's exports), without lowering any.
pub fn library_exports(container: &Container<'_>) -> Result<Vec<LibraryExport>, LowerError> {
    let part = container
        .part(FourCc::DXIL)
        .or_else(|| container.program_part())
        .ok_or(ContainerError::MissingPart(FourCc::DXIL))?;
    let (_, bitcode) = DxilProgramHeader::parse(part)?;
    let m = Module::parse(bitcode).map_err(|e| LowerError::Decode(format!("DXIL module: {e}")))?;
    let md =
        DxilMetadata::read(&m).map_err(|e| LowerError::Decode(format!("DXIL metadata: {e}")))?;
    Ok(md
        .entry_points
        .iter()
        .filter(|e| e.function.is_some())
        .map(|e| LibraryExport {
            name: export_name(&e.name).to_owned(),
            stage: e
                .properties
                .iter()
                .find_map(|(_, p)| match p {
                    Property::ShaderKind(k) => Some(*k),
                    _ => None,
                })
                .and_then(library_stage),
        })
        .collect())
}

/// The stage of a DXIL `ShaderKind` (0 pixel … 5 compute … 7–12 ray tracing, 13 mesh,
/// 14 amplification); `None` for the others (4 library functions' 6, 15 node).
fn library_stage(kind: u32) -> Option<Stage> {
    Some(match kind {
        0 => Stage::Pixel,
        1 => Stage::Vertex,
        2 => Stage::Geometry,
        3 => Stage::Hull,
        4 => Stage::Domain,
        5 => Stage::Compute,
        7 => Stage::RayGeneration,
        8 => Stage::Intersection,
        9 => Stage::AnyHit,
        10 => Stage::ClosestHit,
        11 => Stage::Miss,
        12 => Stage::Callable,
        13 => Stage::Mesh,
        14 => Stage::Amplification,
        _ => return None,
    })
}

/// Lowers the entry point of a decoded module.
pub fn lower_module(m: &Module, opts: &LoadOptions) -> Result<Shader, LowerError> {
    lower_module_with(m, opts, None)
}

/// [`lower_module`], checking the stage's words of the container's PSV0 (`psv`) where
/// the lowering reads the same state from the metadata (geometry programs).
fn lower_module_with(
    m: &Module,
    opts: &LoadOptions,
    psv: Option<&Psv0>,
) -> Result<Shader, LowerError> {
    let md =
        DxilMetadata::read(m).map_err(|e| LowerError::Decode(format!("DXIL metadata: {e}")))?;
    let kind = md
        .shader_model
        .as_ref()
        .map(|s| s.kind.as_str())
        .ok_or_else(|| LowerError::Decode("DXIL metadata: no dx.shaderModel".into()))?;
    let entry = pick_entry(&md, opts)?;
    let location = format!("entry point {}", entry.name);
    // The stage: the shader model's kind, or for a library entry its shader-kind
    // property (DXIL ShaderKind: 0 pixel … 5 compute … 7–12 ray tracing, 13 mesh,
    // 14 amplification, 15 node).
    let stage_kind = if kind == "lib" {
        let sk = entry.properties.iter().find_map(|(_, p)| match p {
            Property::ShaderKind(k) => Some(*k),
            _ => None,
        });
        match sk {
            Some(5) => "cs",
            Some(0) => "ps",
            Some(1) => "vs",
            Some(2) => "gs",
            Some(3) => "hs",
            Some(4) => "ds",
            Some(7) => "raygeneration",
            Some(8) => "intersection",
            Some(9) => "anyhit",
            Some(10) => "closesthit",
            Some(11) => "miss",
            Some(12) => "callable",
            Some(13) => "ms",
            Some(14) => "as",
            Some(15) => "node",
            _ => "lib",
        }
    } else {
        kind
    };
    let stage = match stage_kind {
        "cs" => Stage::Compute,
        "vs" => Stage::Vertex,
        "ps" => Stage::Pixel,
        "ms" => Stage::Mesh,
        "as" => Stage::Amplification,
        "gs" => Stage::Geometry,
        "hs" => Stage::Hull,
        "ds" => Stage::Domain,
        "raygeneration" => Stage::RayGeneration,
        "intersection" => Stage::Intersection,
        "anyhit" => Stage::AnyHit,
        "closesthit" => Stage::ClosestHit,
        "miss" => Stage::Miss,
        "callable" => Stage::Callable,
        other => {
            return Err(LowerError::Unsupported {
                what: stage_refusal(other),
                location,
            });
        }
    };
    let fname = entry
        .function_name
        .clone()
        .ok_or_else(|| LowerError::Entry(format!("entry point {} has no function", entry.name)))?;
    let fi = m
        .functions
        .iter()
        .position(|f| f.name == fname)
        .ok_or_else(|| LowerError::Entry(format!("entry function @{fname} does not exist")))?;
    let mut b = Builder::new(stage);
    {
        let s = b.shader_mut();
        s.entry = if stage.is_ray_tracing() {
            export_name(&entry.name).to_owned()
        } else {
            entry.name.clone()
        };
        s.thread_group = match (stage, entry.num_threads()) {
            (Stage::Compute | Stage::Mesh | Stage::Amplification, Some(n)) => n,
            (Stage::Compute | Stage::Mesh | Stage::Amplification, None) => {
                return Err(LowerError::Invalid {
                    message: format!("a {stage} program without [numthreads]"),
                    location,
                });
            }
            _ => [0, 0, 0],
        };
        s.wave_size = wave_size(entry);
        s.fp32_denorm = match entry.fp32_denorm_mode.as_deref() {
            Some("preserve") => DenormMode::Preserve,
            Some("ftz") => DenormMode::Ftz,
            _ => DenormMode::Any,
        };
        s.early_depth_stencil = stage == Stage::Pixel && early_depth_stencil(entry);
    }
    let mut hull_fn = None;
    let mut io = match stage {
        Stage::Compute => stage::Io::compute(),
        Stage::Mesh | Stage::Amplification => {
            let m = mesh::state(stage, entry, &location)?;
            let s = b.shader_mut();
            s.mesh = Some(m);
            if stage == Stage::Mesh {
                // The payload is the first bytes of group shared memory (`mesh`).
                s.groupshared_bytes = m.payload_bytes.div_ceil(4) * 4;
                stage::Io::lay_out_mesh(entry.signatures.as_ref(), s)?
            } else {
                stage::Io::no_signatures(stage)
            }
        }
        Stage::Geometry => {
            let (g, mask) = geometry::state(entry, &location)?;
            if let Some(psv) = psv {
                geometry::check_psv0(psv, &g, mask, &location)?;
            }
            let s = b.shader_mut();
            s.geometry = Some(g);
            stage::Io::lay_out_geometry(entry.signatures.as_ref(), s, mask)?
        }
        Stage::Hull => {
            let h = hull::hull_state(m, entry, &location)?;
            let pc = m
                .functions
                .iter()
                .position(|f| f.name == h.patch_function)
                .ok_or_else(|| {
                    LowerError::Entry(format!(
                        "patch-constant function @{} does not exist",
                        h.patch_function
                    ))
                })?;
            hull_fn = Some(pc);
            stage::Io::lay_out_hull(entry.signatures.as_ref(), b.shader_mut(), &h)?
        }
        Stage::Domain => {
            let (d, n) = hull::domain_state(entry, &location)?;
            stage::Io::lay_out_domain(entry.signatures.as_ref(), b.shader_mut(), d, n)?
        }
        _ => stage::Io::lay_out(stage, entry.signatures.as_ref(), b.shader_mut())?,
    };
    io.debugging = opts.debugging;
    let mut ranges = Vec::new();
    if let Some(res) = entry.resources.as_ref().or(md.resources.as_ref()) {
        for r in res.all() {
            let (ir, info) = resources::range_of(r).map_err(|what| LowerError::Unsupported {
                what,
                location: format!(
                    "resource {}",
                    if r.name.is_empty() {
                        "(unnamed)"
                    } else {
                        &r.name
                    }
                ),
            })?;
            b.shader_mut().resources.push(ir);
            ranges.push(info);
        }
    }
    let declared = if stage.is_ray_tracing() {
        Some(rays::Declared::of(entry))
    } else {
        None
    };
    match hull_fn {
        Some(pc) => lower_hull(m, fi, pc, b, ranges, io),
        None => lower_entry(m, fi, b, ranges, io, declared),
    }
}

/// The DXIL shader flag (entry-point property 0) of `[earlydepthstencil]`:
/// `ShaderFlags::m_bForceEarlyDepthStencil`, bit 3, the same bit as DXBC's
/// `D3D11_SB_GLOBAL_FLAG_FORCE_EARLY_DEPTH_STENCIL` in `dcl_globalFlags`.
pub const FLAG_FORCE_EARLY_DEPTH_STENCIL: u64 = 1 << 3;

/// Whether a pixel entry asks for depth and stencil tests before it runs.
fn early_depth_stencil(e: &EntryPoint) -> bool {
    e.flags()
        .is_some_and(|f| f & FLAG_FORCE_EARLY_DEPTH_STENCIL != 0)
}

/// Lowers function `fi` of a module as the entry point into `b`, whose header the caller
/// has filled (and for a vertex or pixel entry its signature elements, laid out in `io`),
/// with the resource ranges `ranges` (parallel to the header's).
///
/// A ray-tracing entry (`declared`: its sizes from the metadata) takes its payload,
/// parameter and attributes as pointer arguments (`rays`); other entries take none.
fn lower_entry(
    m: &Module,
    fi: usize,
    b: Builder,
    ranges: Vec<resources::Range>,
    io: stage::Io,
    declared: Option<rays::Declared>,
) -> Result<Shader, LowerError> {
    let f = m
        .functions
        .get(fi)
        .ok_or_else(|| LowerError::Entry(format!("function {fi} does not exist")))?;
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| LowerError::Entry(format!("entry function @{} has no body", f.name)))?;
    if declared.is_none() && !body.args.is_empty() {
        return Err(LowerError::Unsupported {
            what: "an entry function with parameters".into(),
            location: format!("function @{}", f.name),
        });
    }
    let stage = io.stage;
    let mut fl = fn_lower(m, fi, b, ranges, io)?;
    if let Some(d) = declared {
        fl.ray_arguments(&d)?;
    }
    let mut s = lower_function(fl)?;
    // SM 6.7 `[WaveOpsIncludeHelperLanes]`: dxc marks a pixel entry with this function
    // attribute; other stages have no helper lanes.
    s.wave_ops_include_helpers = stage == Stage::Pixel
        && m.function_string_attribute(f, "waveops-include-helper-lanes")
            .is_some();
    if !matches!(stage, Stage::Compute | Stage::Mesh | Stage::Amplification)
        && s.groupshared_bytes > 0
    {
        return Err(LowerError::Invalid {
            message: format!("group shared memory in a {stage} shader"),
            location: format!("function @{}", f.name),
        });
    }
    Ok(s)
}

/// Lowers a hull program (`hull` module doc): block 0 reads the phase word and branches
/// to the entry function (`cp_fi`, the control-point phase) or to the patch-constant
/// function (`pc_fi`, the fork phase), each lowered into blocks of its own.
fn lower_hull(
    m: &Module,
    cp_fi: usize,
    pc_fi: usize,
    mut b: Builder,
    ranges: Vec<resources::Range>,
    io: stage::Io,
) -> Result<Shader, LowerError> {
    let Some(h) = b.shader().hull else {
        return Err(LowerError::Invalid {
            message: "a hull program without its hull state".into(),
            location: "the entry point".into(),
        });
    };
    let phase = b.temp();
    b.emit(crate::ir::Inst::Input {
        dst: phase,
        slot: h.phase_word,
    });
    let k = b.konst(crate::ir::hull_phase::CONTROL_POINT);
    let is_cp = b.temp();
    b.emit(crate::ir::Inst::ICmp {
        cond: crate::ir::ICond::Eq,
        dst: is_cp,
        a: phase,
        b: k,
    });
    let cp = b.new_block();
    let pc = b.new_block();
    b.terminate(crate::ir::Terminator::Branch {
        cond: is_cp,
        then_: cp,
        else_: pc,
    });
    let mut fl = fn_lower(m, cp_fi, b, ranges.clone(), io.clone())?;
    lower_body(&mut fl, cp)?;
    let b = fl.b;
    let mut io = io;
    io.patch_phase = true;
    let mut fl = fn_lower(m, pc_fi, b, ranges, io)?;
    lower_body(&mut fl, pc)?;
    let s = finish(fl)?;
    if s.groupshared_bytes > 0 {
        return Err(LowerError::Invalid {
            message: "group shared memory in a hull shader".into(),
            location: "the hull program's functions".into(),
        });
    }
    Ok(s)
}

/// The lowering state of function `fi` (an entry point's or a hull program's
/// patch-constant function: a body without parameters) into builder `b`.
fn fn_lower<'m>(
    m: &'m Module,
    fi: usize,
    b: Builder,
    ranges: Vec<resources::Range>,
    io: stage::Io,
) -> Result<FnLower<'m>, LowerError> {
    let f = m
        .functions
        .get(fi)
        .ok_or_else(|| LowerError::Entry(format!("function {fi} does not exist")))?;
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| LowerError::Entry(format!("function @{} has no body", f.name)))?;
    // A ray-tracing export takes its payload, attributes or parameter as arguments;
    // `lower_entry` has checked them against what the entry declares.
    if !io.stage.is_ray_tracing() && !body.args.is_empty() {
        return Err(LowerError::Unsupported {
            what: "an entry function with parameters".into(),
            location: format!("function @{}", f.name),
        });
    }
    Ok(FnLower {
        m,
        body,
        fi: u32::try_from(fi).unwrap_or(u32::MAX),
        fname: &f.name,
        b,
        dl: layout::DataLayout::parse(m.datalayout.as_deref()),
        ranges,
        vals: HashMap::new(),
        globals: HashMap::new(),
        global_inits: Vec::new(),
        uses: HashMap::new(),
        users: HashMap::new(),
        handles: HashMap::new(),
        roots: HashMap::new(),
        allocas: HashMap::new(),
        blocks: Vec::new(),
        inst: 0,
        precise_kind: m.metadata_kind("dx.precise"),
        lane: None,
        io,
    })
}

/// The entry point to lower: the one named, or the only one with a function.
fn pick_entry<'a>(md: &'a DxilMetadata, opts: &LoadOptions) -> Result<&'a EntryPoint, LowerError> {
    let with_fn: Vec<&EntryPoint> = md
        .entry_points
        .iter()
        .filter(|e| e.function.is_some())
        .collect();
    match &opts.entry {
        Some(name) => with_fn
            .iter()
            .copied()
            .find(|e| {
                &e.name == name
                    || e.function_name.as_deref() == Some(name)
                    || export_name(&e.name) == name
            })
            .ok_or_else(|| {
                LowerError::Entry(format!(
                    "no entry point {name} (the program has {})",
                    names(&with_fn)
                ))
            }),
        None => match with_fn.as_slice() {
            [one] => Ok(*one),
            [] => Err(LowerError::Entry("the program has no entry point".into())),
            many => Err(LowerError::Entry(format!(
                "the program has several entry points ({}); name one",
                names(many)
            ))),
        },
    }
}

/// The name a library exports a function under: dxc names a library's entry points by
/// their MSVC-mangled symbol (`\u{1}?raygen@@YAXXZ`), whose first name component is the
/// HLSL function's name (`raygen`), the name a state object's `D3D12_EXPORT_DESC` and
/// a job file use. Names that are not mangled are their own export name.
pub fn export_name(symbol: &str) -> &str {
    let s = symbol.strip_prefix('\u{1}').unwrap_or(symbol);
    match s.strip_prefix('?') {
        Some(rest) => rest.split('@').next().unwrap_or(rest),
        None => s,
    }
}

fn names(e: &[&EntryPoint]) -> String {
    e.iter()
        .map(|e| export_name(&e.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The refusal for a stage the lowering does not take, naming it.
pub fn stage_refusal(kind: &str) -> String {
    match kind {
        "gs" => "geometry shader stage".into(),
        "hs" => "hull shader stage (the pipeline has no tessellation stages)".into(),
        "ds" => "domain shader stage (the pipeline has no tessellation stages)".into(),
        "node" => "work graph node shader stage (work graphs are not implemented)".into(),
        other => format!("shader kind {other:?}"),
    }
}

/// `[WaveSize]`: tag 11 (one value, SM 6.6) or DXIL 1.8's ranged tag 23 (min, max,
/// preferred), read by `EntryPoint::wave_size`.
fn wave_size(e: &EntryPoint) -> Option<WaveSizeReq> {
    let w = e.wave_size()?;
    Some(WaveSizeReq {
        min: w.min,
        max: w.upper(),
        preferred: w.preferred,
    })
}

/// Lowers the entry function's body and finishes the shader.
fn lower_function(mut fl: FnLower<'_>) -> Result<Shader, LowerError> {
    lower_body(&mut fl, crate::ir::BlockId(0))?;
    finish(fl)
}

/// Lowers the function's body into the builder, its LLVM entry block at IR block
/// `entry` (block 0 for an entry point; a hull program's two functions each start at a
/// block of their own behind the phase branch).
fn lower_body(fl: &mut FnLower<'_>, entry: crate::ir::BlockId) -> Result<(), LowerError> {
    let body = fl.body;
    let n = body.blocks.len();
    if n == 0 {
        return Err(fl.invalid("the entry function has no blocks"));
    }
    // The LLVM control-flow graph.
    let mut succs: Vec<Vec<u32>> = Vec::with_capacity(n);
    for (bi, bb) in body.blocks.iter().enumerate() {
        let last = bb
            .end
            .checked_sub(1)
            .and_then(|i| body.instructions.get(i as usize));
        let Some(term) = last.filter(|i| i.kind.is_terminator()) else {
            fl.inst = bb.end;
            return Err(fl.invalid(format!("block bb{bi} does not end with a terminator")));
        };
        let mut s: Vec<u32> = Vec::new();
        for t in term.kind.successors() {
            if t.index() >= n || t.0 == 0 {
                fl.inst = bb.end.saturating_sub(1);
                return Err(fl.invalid(format!("a branch to block {t}")));
            }
            if !s.contains(&t.0) {
                s.push(t.0);
            }
        }
        succs.push(s);
    }
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            if let Some(p) = preds.get_mut(s as usize) {
                p.push(u32::try_from(b).unwrap_or(u32::MAX));
            }
        }
    }
    let graph = Cfg { succs, preds };
    if let Err(CfgError::Irreducible { from, to }) = cfg::loops(&graph) {
        return Err(LowerError::Unsupported {
            what: format!(
                "irreducible control flow (the edge from block bb{from} to block bb{to} enters a loop other than through its header)"
            ),
            location: format!("dxil function {} (@{})", fl.fi, fl.fname),
        });
    }
    let rpo = graph.reverse_post_order();

    // Which instructions matter: those with effects (stores, atomics, calls that write,
    // terminators) and, backwards, every instruction whose result one of them reads.
    // The others are dropped; `needed` holds the values live instructions read.
    let m = fl.m;
    let count = body.instructions.len();
    let mut live: Vec<bool> = body
        .instructions
        .iter()
        .map(|inst| inst.result.is_none() || !func::is_pure(m, body, &inst.kind))
        .collect();
    let mut work: Vec<usize> = (0..count).filter(|&i| live.get(i) == Some(&true)).collect();
    while let Some(i) = work.pop() {
        let Some(inst) = body.instructions.get(i) else {
            continue;
        };
        for v in inst.kind.value_operands() {
            fl.uses.insert(v, 1);
            let def = match m.value(Some(body), v).map(|x| &x.kind) {
                Some(llvm::ValueKind::Instruction(j)) => Some(*j),
                _ => None,
            };
            if let Some(j) = def
                && let Some(l) = live.get_mut(j as usize)
                && !*l
            {
                *l = true;
                work.push(j as usize);
            }
        }
    }
    for (i, inst) in body.instructions.iter().enumerate() {
        if !live.get(i).copied().unwrap_or(false) {
            continue;
        }
        for v in inst.kind.value_operands() {
            fl.users
                .entry(v)
                .or_default()
                .push(u32::try_from(i).unwrap_or(u32::MAX));
        }
    }
    // One IR block per LLVM block; LLVM's entry is the IR's block 0.
    fl.blocks.push(entry);
    for _ in 1..n {
        let b = fl.b.new_block();
        fl.blocks.push(b);
    }
    fl.analyse(&rpo)?;
    fl.allocate_phis()?;

    // Global initialisers run first.
    fl.b.switch_to(entry);
    fl.b.set_loc(crate::ir::SourceLoc::None);
    for i in std::mem::take(&mut fl.global_inits) {
        fl.emit(i);
    }
    for &bi in &rpo {
        let bid = llvm::BlockId(bi);
        let Some(bb) = body.blocks.get(bi as usize) else {
            continue;
        };
        let ir = fl.blocks.get(bi as usize).copied().unwrap_or_default();
        fl.b.switch_to(ir);
        let insts = body.block_instructions(bid);
        let Some((term, rest)) = insts.split_last() else {
            continue;
        };
        for (k, inst) in rest.iter().enumerate() {
            fl.at_inst(
                bb.start
                    .saturating_add(u32::try_from(k).unwrap_or(u32::MAX)),
            );
            fl.lower_inst(inst)?;
        }
        fl.at_inst(bb.end.saturating_sub(1));
        fl.lower_terminator(bid, term)?;
        // Global initialisers may have been made while lowering (a global first met
        // here): they belong at the very start, which is only possible before the
        // entry block is lowered.
        if !fl.global_inits.is_empty() {
            return Err(fl.invalid("a global initialised after the entry block was lowered"));
        }
    }
    // The debugger's source map: each instruction result's registers.
    let mut named: Vec<(u32, Vec<crate::ir::Reg>)> = fl
        .vals
        .iter()
        .filter_map(
            |(v, val)| match (val, fl.m.value(Some(body), *v).map(|x| &x.kind)) {
                (func::Val::Regs(r), Some(llvm::ValueKind::Instruction(_))) => {
                    Some((v.0, r.clone()))
                }
                _ => None,
            },
        )
        .collect();
    named.sort_by_key(|(v, _)| *v);
    for (value, regs) in named {
        fl.b.name_regs(
            crate::ir::VarKey::DxilValue {
                function: fl.fi,
                value,
            },
            regs,
        );
    }
    Ok(())
}

/// Finishes the shader the lowered functions built.
fn finish(fl: FnLower<'_>) -> Result<Shader, LowerError> {
    let loc = format!("dxil function {} (@{})", fl.fi, fl.fname);
    fl.b.finish().map_err(|e| match e {
        crate::ir::BuildError::Cfg(c) => LowerError::Unsupported {
            what: format!("control flow the IR cannot order: {c}"),
            location: loc,
        },
        other => LowerError::Build(other),
    })
}
