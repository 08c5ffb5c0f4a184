//! The comment block at the top of a listing, in the order dxc's `Disassemble`
//! (`dxcdisassembler.cpp`) writes it:
//!
//! 1. `SFI0`: `; Note: shader requires additional functionality:` (`PrintFeatureInfo`);
//! 2. `ISG1`, `OSG1`, `PSG1`: the `Name Index Mask Register SysValue Format Used`
//!    tables (`PrintSignature`);
//! 3. `ILDN`: the debug name; `HASH`: `; shader hash:`;
//! 4. `PSV0`: `; Pipeline Runtime Information:` (`PrintPSVRuntimeInfo` of
//!    `DxilPipelineStateValidation.cpp`);
//! 5. from the module's metadata (when it has `dx.version`): the DXIL signatures
//!    (`Name Index InterpMode DynIdx`, not for libraries), then from the reflection
//!    module (the `STAT` part's module when there is one) the buffer definitions, the
//!    resource bindings and the view-id state.
//!
//! Owns: those texts. Does not own: decoding the parts (see [`crate::container`]) or
//! the metadata (see [`crate::dxil::meta`]).
//! 6. a library's `; Subobjects:` block from the `RDAT` part (see [`super::subobjects`]).

use std::fmt::Write as _;

use super::buffers::{Reflection, left, right};
use crate::container::psv0::{Psv0, RuntimeInfo};
use crate::container::signature::Signature;
use crate::container::{Container, DxilProgramHeader, FourCc, ProgramKind};
use crate::dxil::llvm::Module;
use crate::dxil::meta::{DxilMetadata, SignatureElement};

/// dxc's names of the `SFI0` feature bits (`g_pFeatureInfoNames`).
const FEATURE_NAMES: [&str; 33] = [
    "Double-precision floating point",
    "Raw and Structured buffers",
    "UAVs at every shader stage",
    "64 UAV slots",
    "Minimum-precision data types",
    "Double-precision extensions for 11.1",
    "Shader extensions for 11.1",
    "Comparison filtering for feature level 9",
    "Tiled resources",
    "PS Output Stencil Ref",
    "PS Inner Coverage",
    "Typed UAV Load Additional Formats",
    "Raster Ordered UAVs",
    "SV_RenderTargetArrayIndex or SV_ViewportArrayIndex from any shader feeding rasterizer",
    "Wave level operations",
    "64-Bit integer",
    "View Instancing",
    "Barycentrics",
    "Use native low precision",
    "Shading Rate",
    "Raytracing tier 1.1 features",
    "Sampler feedback",
    "64-bit Atomics on Typed Resources",
    "64-bit Atomics on Group Shared",
    "Derivatives in mesh and amplification shaders",
    "Resource descriptor heap indexing",
    "Sampler descriptor heap indexing",
    "Wave Matrix",
    "64-bit Atomics on Heap Resources",
    "Advanced Texture Ops",
    "Writeable MSAA Textures",
    "SampleCmp with gradient or bias",
    "Extended command info",
];

/// dxc's names of the optional feature bits, counted from bit 40
/// (`g_pOptFeatureInfoNames`, `OptFeatureInfoShift`).
const OPT_FEATURE_NAMES: [&str; 2] = [
    "Function uses derivatives",
    "Function requires visible group",
];

/// The first optional feature bit.
const OPT_FEATURE_SHIFT: u32 = 40;

/// Shader-flag bits the listing reads (DXIL `ShaderFlags`, entry-point property 0).
mod flag {
    /// `m_bViewID`.
    pub const VIEW_ID: u64 = 1 << 21;
    /// `m_bUseNativeLowPrecision`.
    pub const NATIVE_LOW_PRECISION: u64 = 1 << 23;
}

/// The comment block dxc prints before the module.
pub fn header(c: &Container<'_>, program: &DxilProgramHeader, m: &Module) -> String {
    let mut out = String::new();
    let kind = program.version.kind;
    if let Some(p) = c.part(FourCc(*b"SFI0"))
        && let Ok(f) = crate::container::sfi0::FeatureFlags::parse(p)
    {
        feature_info(&mut out, f.mask);
    }
    for (tag, name, input) in [
        (*b"ISG1", "Input", true),
        (*b"OSG1", "Output", false),
        (*b"PSG1", "Patch Constant", false),
    ] {
        if let Some(p) = c.part(FourCc(tag))
            && let Ok(sig) = Signature::parse(p, Some(kind))
        {
            container_signature(&mut out, name, &sig, input);
        }
    }
    if let Some(p) = c.part(FourCc(*b"ILDN")) {
        match debug_name(p.data) {
            Some(n) if !n.is_empty() => {
                let _ = writeln!(out, "; shader debug name: {n}");
            }
            Some(_) => {}
            None => out.push_str("; shader debug name present; corruption detected\n"),
        }
    }
    if let Some(p) = c.part(FourCc(*b"HASH"))
        && let Ok(h) = crate::container::hash::ShaderHash::parse(p)
    {
        let _ = write!(out, "; shader hash: {}", h.digest);
        if h.includes_source {
            out.push_str(" (includes source)");
        }
        out.push('\n');
    }
    if let Some(p) = c.part(FourCc(*b"PSV0"))
        && let Ok(psv) = Psv0::parse(p, Some(kind))
    {
        out.push_str(";\n; Pipeline Runtime Information: \n;\n");
        psv_runtime_info(&mut out, &psv, kind);
        out.push_str(";\n");
    }
    if m.named("dx.version").is_none() {
        return out;
    }
    let Ok(meta) = DxilMetadata::read(m) else {
        return out;
    };
    let lib = meta.shader_model.as_ref().is_some_and(|s| s.kind == "lib");
    if !lib
        && let Some(sigs) = meta
            .entry_points
            .first()
            .and_then(|e| e.signatures.as_ref())
    {
        let mesh = meta.shader_model.as_ref().is_some_and(|s| s.kind == "ms");
        dxil_signature(&mut out, "Input", &sigs.inputs);
        if mesh {
            dxil_signature(&mut out, "Vertex Output", &sigs.outputs);
            dxil_signature(&mut out, "Primitive Output", &sigs.patch_constants);
        } else {
            dxil_signature(&mut out, "Output", &sigs.outputs);
            dxil_signature(&mut out, "Patch Constant", &sigs.patch_constants);
        }
    }
    // The reflection module: the STAT part's program when it decodes.
    let stat = c
        .part(FourCc(*b"STAT"))
        .and_then(|p| DxilProgramHeader::parse(p).ok())
        .and_then(|(_, bc)| Module::parse(bc).ok());
    let stat_meta = stat.as_ref().and_then(|s| DxilMetadata::read(s).ok());
    let (rm, rmeta) = match (&stat, &stat_meta) {
        (Some(s), Some(sm)) => (s, sm),
        _ => (m, &meta),
    };
    let flags = rmeta
        .entry_points
        .iter()
        .find_map(|e| e.flags())
        .unwrap_or(0);
    let refl = Reflection {
        m: rm,
        meta: rmeta,
        min_precision: flags & flag::NATIVE_LOW_PRECISION == 0,
    };
    refl.buffer_definitions(&mut out);
    refl.resource_bindings(&mut out);
    if rm.named("dx.viewIdState").is_some() {
        view_id_state(&mut out, rmeta, flags);
    }
    if let Some(p) = c.part(FourCc(*b"RDAT")) {
        out.push_str(&super::subobjects::subobjects(p.data));
    }
    out
}

/// `PrintFeatureInfo`.
fn feature_info(out: &mut String, mask: u64) {
    if mask == 0 {
        return;
    }
    out.push_str(";\n; Note: shader requires additional functionality:\n");
    for (i, name) in FEATURE_NAMES.iter().enumerate() {
        if mask & (1u64 << i) != 0 {
            let _ = writeln!(out, ";       {name}");
        }
    }
    out.push_str(";\n");
    let opt = mask >> OPT_FEATURE_SHIFT;
    if opt == 0 {
        return;
    }
    out.push_str("; Note: shader has optional feature flags set:\n");
    for (i, name) in OPT_FEATURE_NAMES.iter().enumerate() {
        if opt & (1u64 << i) != 0 {
            let _ = writeln!(out, ";       {name}");
        }
    }
    out.push_str(";\n");
}

/// The `xyzw` letters of a mask, with spaces for absent components.
fn mask_letters(mask: u8) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .map(|(i, c)| if mask & (1 << i) != 0 { c } else { ' ' })
        .collect()
}

/// `PrintSignature`: a container signature part's table. The `Used` column shows the
/// element's read-write byte for the input signature and its complement for the
/// others (dxc passes `bIsInput` only for `ISG1`), as letters in absolute component
/// positions.
fn container_signature(out: &mut String, name: &str, sig: &Signature, input: bool) {
    let _ = write!(out, ";\n; {name} signature:\n;\n");
    out.push_str("; Name                 Index   Mask Register SysValue  Format   Used\n");
    out.push_str("; -------------------- ----- ------ -------- -------- ------- ------\n");
    if sig.elements.is_empty() {
        out.push_str("; no parameters\n");
        return;
    }
    let streams = sig.elements.iter().any(|e| e.stream != 0);
    for e in &sig.elements {
        out.push_str("; ");
        if streams {
            let _ = write!(out, "m{}:{}", e.stream, left(&e.semantic_name, 17));
        } else {
            out.push_str(&left(&e.semantic_name, 20));
        }
        let _ = write!(out, " {:>5}", e.semantic_index);
        let sv = e.system_value.code();
        if e.register == u32::MAX {
            out.push_str("    N/A");
            let n = e.semantic_name.to_ascii_lowercase();
            out.push_str(match n.as_str() {
                "sv_depth" => "   oDepth",
                "sv_depthgreaterequal" => " oDepthGE",
                "sv_depthlessequal" => " oDepthLE",
                "sv_coverage" => "    oMask",
                "sv_stencilref" => "    oStencilRef",
                _ if sv == 7 => "   primID",
                _ => "  special",
            });
        } else {
            let _ = write!(out, "   {} {:>8}", mask_letters(e.mask), e.register);
        }
        out.push_str(&right(system_value_name(sv), 9));
        out.push_str(&right(sig_comp_type_name(e.component_type.code()), 8));
        let rw = if input { e.rw_mask } else { !e.rw_mask };
        if e.register == u32::MAX {
            out.push_str(if rw != 0 { "    YES" } else { "     NO" });
        } else {
            out.push_str("   ");
            out.push_str(&mask_letters(rw));
        }
        out.push('\n');
    }
    out.push_str(";\n");
}

/// The `SysValue` column (`DxilProgramSigSemantic` → dxc's abbreviation; `NONE` for
/// anything it does not name).
fn system_value_name(code: u32) -> &'static str {
    match code {
        1 => "POS",
        2 => "CLIPDST",
        3 => "CULLDST",
        4 => "RTINDEX",
        5 => "VPINDEX",
        6 => "VERTID",
        7 => "PRIMID",
        8 => "INSTID",
        9 => "FFACE",
        10 => "SAMPLE",
        11 => "QUADEDGE",
        12 => "QUADINT",
        13 => "TRIEDGE",
        14 => "TRIINT",
        15 => "LINEDET",
        16 => "LINEDEN",
        23 => "BARYCEN",
        24 => "SHDINGRATE",
        25 => "CULLPRIM",
        64 => "TARGET",
        65 => "DEPTH",
        66 => "COVERAGE",
        67 => "DEPTHGE",
        68 => "DEPTHLE",
        69 => "STENCILREF",
        70 => "INNERCOV",
        _ => "NONE",
    }
}

/// The `Format` column (`DxilProgramSigCompType`).
fn sig_comp_type_name(code: u32) -> &'static str {
    match code {
        1 => "uint",
        2 => "int",
        3 => "float",
        4 => "uint16",
        5 => "int16",
        6 => "fp16",
        7 => "uint64",
        8 => "int64",
        9 => "double",
        _ => "unknown",
    }
}

/// An `ILDN` part's name (`DxilShaderDebugName`: flags u16, length u16, then the name
/// and a NUL); `None` when the part is too short for what it states.
pub(crate) fn debug_name(data: &[u8]) -> Option<String> {
    let len = usize::from(u16::from_le_bytes([*data.get(2)?, *data.get(3)?]));
    let name = data.get(4..4 + len)?;
    if data.get(4 + len).copied() != Some(0) {
        return None;
    }
    Some(String::from_utf8_lossy(name).into_owned())
}

/// `PrintPSVRuntimeInfo` with the comment `;`: the stage's words, the wave lane range,
/// and with a version-1 record the element and vector counts, with a version-3 record
/// the entry name. The stage is the program header's, unless the record's own stage
/// byte differs.
fn psv_runtime_info(out: &mut String, psv: &Psv0, header_kind: ProgramKind) {
    let ri: &RuntimeInfo = &psv.runtime_info;
    let w = ri.stage_words;
    let byte = |word: u32, i: u32| (word >> (8 * i)) & 0xff;
    let kind = ri
        .v1
        .as_ref()
        .map(|v| v.shader_stage.code())
        .unwrap_or(header_kind.code());
    out.push_str(";PSVRuntimeInfo:\n");
    match kind {
        3 => {
            let _ = writeln!(out, "; Hull Shader");
            let _ = writeln!(out, "; InputControlPointCount={}", w[0]);
            let _ = writeln!(out, "; OutputControlPointCount={}", w[1]);
            let _ = writeln!(out, "; Domain={}", tess_domain(w[2]));
            let _ = writeln!(out, "; OutputPrimitive={}", tess_output(w[3]));
        }
        4 => {
            let _ = writeln!(out, "; Domain Shader");
            let _ = writeln!(out, "; InputControlPointCount={}", w[0]);
            let _ = writeln!(
                out,
                "; OutputPositionPresent={}",
                u32::from(byte(w[1], 0) != 0)
            );
        }
        2 => {
            let _ = writeln!(out, "; Geometry Shader");
            let _ = writeln!(out, "; InputPrimitive={}", input_primitive(w[0]));
            let _ = writeln!(out, "; OutputTopology={}", output_topology(w[1]));
            let _ = writeln!(out, "; OutputStreamMask={}", w[2]);
            let _ = writeln!(
                out,
                "; OutputPositionPresent={}",
                u32::from(byte(w[3], 0) != 0)
            );
        }
        1 => {
            let _ = writeln!(out, "; Vertex Shader");
            let _ = writeln!(
                out,
                "; OutputPositionPresent={}",
                u32::from(byte(w[0], 0) != 0)
            );
        }
        0 => {
            let _ = writeln!(out, "; Pixel Shader");
            let _ = writeln!(out, "; DepthOutput={}", u32::from(byte(w[0], 0) != 0));
            let _ = writeln!(out, "; SampleFrequency={}", u32::from(byte(w[0], 1) != 0));
        }
        5 | 14 => {
            let _ = writeln!(
                out,
                "; {} Shader",
                if kind == 5 {
                    "Compute"
                } else {
                    "Amplification"
                }
            );
            if let Some(n) = ri.num_threads {
                let _ = writeln!(out, "; NumThreads=({},{},{})", n[0], n[1], n[2]);
            }
            // A version-4 record (56 bytes) states the group-shared bytes; dxc 1.10
            // prints them after the thread group of a compute program.
            if kind == 5
                && let Some(bytes) = ri.extra_words.first()
            {
                let _ = writeln!(out, "; NumBytesGroupSharedMemory: {bytes}");
            }
        }
        13 => {
            out.push_str("; Mesh Shader\n");
            if let Some(v1) = &ri.v1 {
                let topology = match v1.stage_word >> 8 {
                    0 => "undefined",
                    1 => "line",
                    2 => "triangle",
                    _ => "invalid",
                };
                let _ = writeln!(out, "; MeshOutputTopology={topology}");
            }
            if let Some(n) = ri.num_threads {
                let _ = writeln!(out, "; NumThreads=({},{},{})", n[0], n[1], n[2]);
            }
        }
        _ => {}
    }
    if ri.min_wave_lanes == ri.max_wave_lanes {
        let _ = writeln!(out, "; WaveSize={}", ri.min_wave_lanes);
    } else {
        let _ = writeln!(out, "; MinimumExpectedWaveLaneCount: {}", ri.min_wave_lanes);
        let _ = writeln!(out, "; MaximumExpectedWaveLaneCount: {}", ri.max_wave_lanes);
    }
    if let Some(v1) = &ri.v1 {
        let _ = writeln!(out, "; UsesViewID: {}", v1.uses_view_id);
        let _ = writeln!(out, "; SigInputElements: {}", v1.input_elements);
        let _ = writeln!(out, "; SigOutputElements: {}", v1.output_elements);
        let _ = writeln!(
            out,
            "; SigPatchConstOrPrimElements: {}",
            v1.patch_constant_elements
        );
        let _ = writeln!(out, "; SigInputVectors: {}", v1.input_vectors);
        for (i, v) in v1.output_vectors.iter().enumerate() {
            let _ = writeln!(out, "; SigOutputVectors[{i}]: {v}");
        }
    }
    if ri.entry_name_offset.is_some() {
        let _ = writeln!(
            out,
            "; EntryFunctionName: {}",
            ri.entry_name.as_deref().unwrap_or("")
        );
    }
}

fn tess_domain(v: u32) -> &'static str {
    match v {
        1 => "isoline",
        2 => "tri",
        3 => "quad",
        _ => "invalid",
    }
}

fn tess_output(v: u32) -> &'static str {
    match v {
        1 => "point",
        2 => "line",
        3 => "triangle_cw",
        4 => "triangle_ccw",
        _ => "invalid",
    }
}

fn input_primitive(v: u32) -> String {
    match v {
        1 => "point".into(),
        2 => "line".into(),
        3 => "triangle".into(),
        6 => "lineadj".into(),
        7 => "triangleadj".into(),
        8..=39 => format!("patch{}", v - 7),
        _ => "invalid".into(),
    }
}

fn output_topology(v: u32) -> &'static str {
    match v {
        1 => "point",
        3 => "line",
        5 => "triangle",
        _ => "invalid",
    }
}

/// `InterpolationMode::GetName` (DXIL `InterpolationMode` numbers).
fn interpolation_name(v: u32) -> &'static str {
    match v {
        0 => "",
        1 => "nointerpolation",
        2 => "linear",
        3 => "centroid",
        4 => "noperspective",
        5 => "noperspective centroid",
        6 => "sample",
        7 => "noperspective sample",
        _ => "invalid",
    }
}

/// The name a signature element prints with (`DxilSignatureElement::GetName`): its
/// own name for an arbitrary semantic, the system value's canonical spelling
/// otherwise (DxilSemantic.cpp's table).
pub fn element_name(e: &SignatureElement) -> &str {
    const SV: [&str; 33] = [
        "",
        "SV_VertexID",
        "SV_InstanceID",
        "SV_Position",
        "SV_RenderTargetArrayIndex",
        "SV_ViewportArrayIndex",
        "SV_ClipDistance",
        "SV_CullDistance",
        "SV_OutputControlPointID",
        "SV_DomainLocation",
        "SV_PrimitiveID",
        "SV_GSInstanceID",
        "SV_SampleIndex",
        "SV_IsFrontFace",
        "SV_Coverage",
        "SV_InnerCoverage",
        "SV_Target",
        "SV_Depth",
        "SV_DepthLessEqual",
        "SV_DepthGreaterEqual",
        "SV_StencilRef",
        "SV_DispatchThreadID",
        "SV_GroupID",
        "SV_GroupIndex",
        "SV_GroupThreadID",
        "SV_TessFactor",
        "SV_InsideTessFactor",
        "SV_ViewID",
        "SV_Barycentrics",
        "SV_ShadingRate",
        "SV_CullPrimitive",
        "SV_BaseVertexLocation",
        "SV_StartInstanceLocation",
    ];
    match e.semantic_kind {
        0 => &e.name,
        k => SV.get(k as usize).copied().unwrap_or(&e.name),
    }
}

/// `PrintDxilSignature`: the module's signature (nothing when it is empty).
fn dxil_signature(out: &mut String, name: &str, elems: &[SignatureElement]) {
    if elems.is_empty() {
        return;
    }
    let _ = write!(out, ";\n; {name} signature:\n;\n");
    out.push_str("; Name                 Index             InterpMode DynIdx\n");
    out.push_str("; -------------------- ----- ---------------------- ------\n");
    for e in elems {
        let index = e.semantic_indices.first().copied().unwrap_or(0);
        let dyn_mask: String = "xyzw"
            .chars()
            .enumerate()
            .filter(|(i, _)| e.dynamic_index_mask.unwrap_or(0) & (1 << i) != 0)
            .map(|(_, c)| c)
            .collect();
        let _ = writeln!(
            out,
            "; {} {:>5} {}   {}",
            left(element_name(e), 20),
            index,
            right(interpolation_name(e.interpolation), 22),
            right(&dyn_mask, 4)
        );
    }
}

/// `PrintViewIdState`: the dependency words of `dx.viewIdState`, deserialised as
/// `DxilViewIdState::Deserialize` reads them (inputs count; per stream the outputs
/// count, a view-id mask when the program uses view ids, then the input → output
/// table; for hull, domain and mesh programs the patch-constant or primitive table).
fn view_id_state(out: &mut String, meta: &DxilMetadata, flags: u64) {
    let Some(words) = &meta.view_id_state else {
        return;
    };
    let kind = meta
        .shader_model
        .as_ref()
        .map(|s| s.kind.as_str())
        .unwrap_or("");
    let Some(vid) = ViewIdState::read(words, kind, flags & flag::VIEW_ID != 0) else {
        return;
    };
    out.push_str(";\n; ViewId state:\n;\n");
    let _ = write!(out, "; Number of inputs: {}", vid.inputs);
    let gs = kind == "gs";
    if gs {
        let o = |i: usize| vid.streams.get(i).map_or(0, |s| s.outputs);
        let _ = write!(
            out,
            ", outputs per stream: {{ {}, {}, {}, {} }}",
            o(0),
            o(1),
            o(2),
            o(3)
        );
    } else {
        let _ = write!(
            out,
            ", outputs: {}",
            vid.streams.first().map_or(0, |s| s.outputs)
        );
    }
    match kind {
        "hs" | "ds" => {
            let _ = write!(out, ", patchconst: {}", vid.pc_count);
        }
        "ms" => {
            let _ = write!(out, ", primitive outputs: {}", vid.pc_count);
        }
        _ => {}
    }
    out.push('\n');
    let stream_name = |i: usize| -> String {
        if gs {
            format!("Outputs for Stream {i}")
        } else {
            "Outputs".to_owned()
        }
    };
    for (i, s) in vid.streams.iter().enumerate() {
        if gs && s.outputs == 0 {
            continue;
        }
        dependent_on_view_id(out, &stream_name(i), &s.view_id);
    }
    match kind {
        "hs" => dependent_on_view_id(out, "PCOutputs", &vid.pc_view_id),
        "ms" => dependent_on_view_id(out, "Primitive Outputs", &vid.pc_view_id),
        _ => {}
    }
    for (i, s) in vid.streams.iter().enumerate() {
        if gs && s.outputs == 0 {
            continue;
        }
        contributing(out, "Inputs", &stream_name(i), &s.deps);
    }
    match kind {
        "hs" => contributing(out, "Inputs", "PCOutputs", &vid.pc_deps),
        "ms" => contributing(out, "Inputs", "Primitive Outputs", &vid.pc_deps),
        "ds" => contributing(out, "PCInputs", "Outputs", &vid.pc_deps),
        _ => {}
    }
    out.push_str(";\n");
}

fn dependent_on_view_id(out: &mut String, set: &str, outputs: &[u32]) {
    let list: Vec<String> = outputs.iter().map(u32::to_string).collect();
    let _ = writeln!(
        out,
        "; {set} dependent on ViewId: {{ {} }}",
        list.join(", ")
    );
}

fn contributing(out: &mut String, inputs: &str, outputs: &str, deps: &[(u32, Vec<u32>)]) {
    let _ = writeln!(out, "; {inputs} contributing to computation of {outputs}:");
    for (o, ins) in deps {
        let list: Vec<String> = ins.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            ";   output {o} depends on inputs: {{ {} }}",
            list.join(", ")
        );
    }
}

/// One stream of a deserialised view-id state.
struct VidStream {
    outputs: u32,
    view_id: Vec<u32>,
    deps: Vec<(u32, Vec<u32>)>,
}

/// A deserialised `dx.viewIdState`.
struct ViewIdState {
    inputs: u32,
    streams: Vec<VidStream>,
    pc_count: u32,
    pc_view_id: Vec<u32>,
    pc_deps: Vec<(u32, Vec<u32>)>,
}

/// At most this many scalars per signature (32 rows of 4 components) are read.
const MAX_SCALARS: u32 = 32 * 4 * 4;

impl ViewIdState {
    fn read(words: &[u64], kind: &str, uses_view_id: bool) -> Option<ViewIdState> {
        let mut at = 0usize;
        let next = |at: &mut usize| -> Option<u32> {
            let v = words.get(*at).map(|w| *w as u32);
            *at += 1;
            v
        };
        let inputs = next(&mut at)?.min(MAX_SCALARS);
        let nstreams = if kind == "gs" { 4 } else { 1 };
        let mut streams = Vec::new();
        for _ in 0..nstreams {
            let outputs = next(&mut at)?.min(MAX_SCALARS);
            let view_id = if uses_view_id {
                read_mask(words, &mut at, outputs)?
            } else {
                Vec::new()
            };
            let deps = read_table(words, &mut at, inputs, outputs)?;
            streams.push(VidStream {
                outputs,
                view_id,
                deps,
            });
        }
        let (mut pc_count, mut pc_view_id, mut pc_deps) = (0, Vec::new(), Vec::new());
        if matches!(kind, "hs" | "ds" | "ms") {
            pc_count = next(&mut at)?.min(MAX_SCALARS);
            if kind == "ds" {
                let outs = streams.first().map_or(0, |s| s.outputs);
                pc_deps = read_table(words, &mut at, pc_count, outs)?;
            } else {
                if uses_view_id {
                    pc_view_id = read_mask(words, &mut at, pc_count)?;
                }
                pc_deps = read_table(words, &mut at, inputs, pc_count)?;
            }
        }
        Some(ViewIdState {
            inputs,
            streams,
            pc_count,
            pc_view_id,
            pc_deps,
        })
    }
}

/// The outputs set in a mask of `ceil(n / 32)` words.
fn read_mask(words: &[u64], at: &mut usize, n: u32) -> Option<Vec<u32>> {
    let nwords = n.div_ceil(32) as usize;
    let mut set = Vec::new();
    for i in 0..nwords {
        let x = *words.get(*at + i)? as u32;
        for j in 0..32u32.min(n - 32 * i as u32) {
            if x & (1 << j) != 0 {
                set.push(i as u32 * 32 + j);
            }
        }
    }
    *at += nwords;
    Some(set)
}

/// The input → output table: `inputs` rows of `ceil(outputs / 32)` words; each output
/// with the inputs it depends on, in increasing order.
fn read_table(
    words: &[u64],
    at: &mut usize,
    inputs: u32,
    outputs: u32,
) -> Option<Vec<(u32, Vec<u32>)>> {
    let per_row = outputs.div_ceil(32) as usize;
    let mut deps: Vec<(u32, Vec<u32>)> = Vec::new();
    for o in 0..outputs {
        let (w, b) = ((o / 32) as usize, o % 32);
        let mut ins = Vec::new();
        for i in 0..inputs as usize {
            let word = *words.get(*at + i * per_row + w)? as u32;
            if word & (1 << b) != 0 {
                ins.push(i as u32);
            }
        }
        if !ins.is_empty() {
            deps.push((o, ins));
        }
    }
    *at += inputs as usize * per_row;
    if words.len() < *at {
        return None;
    }
    Some(deps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_id_dependencies_deserialise() {
        // flow.dxil: 6 inputs, 8 outputs; inputs 4 and 5 feed outputs 0 and 5.
        let w = [6u64, 8, 0, 0, 0, 0, 1, 33];
        let v = ViewIdState::read(&w, "ps", false).unwrap();
        assert_eq!(v.inputs, 6);
        assert_eq!(v.streams[0].outputs, 8);
        assert_eq!(v.streams[0].deps, vec![(0, vec![4, 5]), (5, vec![5])]);
    }

    #[test]
    fn features_print_with_dxc_names() {
        let mut s = String::new();
        feature_info(&mut s, 1 << 14);
        assert_eq!(
            s,
            ";\n; Note: shader requires additional functionality:\n;       Wave level operations\n;\n"
        );
    }
}
