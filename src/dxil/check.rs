//! Cross-checks of a DXIL container's `PSV0` and `SFI0` parts against what its module
//! states and uses (`dxlane info --check`).
//!
//! Owns: deriving, from the decoded module and its DXIL metadata, the values `PSV0` and
//! `SFI0` restate, and comparing them field by field. Does not own: decoding the parts
//! (see [`crate::container`]) or the module (see [`crate::dxil::llvm`],
//! [`crate::dxil::meta`]).
//!
//! The `PSV0` checks are the ones seed `000_…` (section "Pipeline-state record")
//! reports holding in every container of two games: resource count, type, space and
//! bounds against `dx.resources` (constant buffers, samplers, SRVs, UAVs in that
//! order), the resource kind (13 for constant buffers, 14 for samplers), the signature
//! elements against the entry point's signatures (name — empty for a system value —,
//! semantic indices, rows, columns, placement, semantic kind, interpolation, component
//! type through `CompTypeToSigCompType`), the stage against the program kind, the thread
//! group against `numthreads`, the vector counts against the highest placed row plus
//! rows, the hull, domain, geometry, vertex and pixel words against the entry point's
//! state and signatures (DirectXShaderCompiler `SetShaderProps`), the dependency-table
//! shapes against the formula, the entry name, and the view-id flag.
//!
//! The `SFI0` checks follow DirectXShaderCompiler's `ShaderFlags::CollectShaderFlags`
//! and `GetFeatureInfo` (see [`expected_features`]).

// Comparisons of already decoded values: counts here are small and bounded by the
// decoders.
#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use std::fmt::Display;

use crate::container::psv0::{DependencyTable, Psv0, PsvElement, mask_words};
use crate::container::sfi0::FeatureFlags;
use crate::container::{Container, ContainerError, DxilProgramHeader, FourCc, ProgramKind};
use crate::dxil::dxop::{self, DxOp};
use crate::dxil::llvm::{
    Constant, FunctionBody, InstKind, LlvmError, Module, Operand, Type, TypeId, ValueId, ValueKind,
};
use crate::dxil::meta::{
    DxilMetadata, EntryPoint, MetaError, Property, Resource, ResourceClass, SignatureElement,
};

/// One field whose two statements differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// What was compared (`PSV0 resource 2 lower bound`).
    pub field: String,
    /// What the module states or implies.
    pub module: String,
    /// What the part states.
    pub part: String,
    /// The rule that derived the module's value: the DXC source and function, and the
    /// validator versions it applies to (`docs/info-check.md` lists them all).
    pub rule: String,
}

/// The result of checking a DXIL container.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckReport {
    /// How many values were compared.
    pub compared: usize,
    /// Every mismatch, in check order.
    pub mismatches: Vec<Mismatch>,
    /// What could not be checked and why (a part absent, a library without `PSV0`).
    pub notes: Vec<String>,
    /// The rule the next comparisons follow (see [`Mismatch::rule`]).
    rule: String,
}

impl CheckReport {
    /// Whether every compared value agrees.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    fn eq<T: PartialEq + Display>(&mut self, field: impl FnOnce() -> String, module: T, part: T) {
        self.compared += 1;
        if module != part {
            self.mismatches.push(Mismatch {
                field: field(),
                module: module.to_string(),
                part: part.to_string(),
                rule: self.rule.clone(),
            });
        }
    }

    /// Sets the rule the following comparisons follow.
    fn rule(&mut self, rule: impl Into<String>) {
        self.rule = rule.into();
    }

    /// A mismatch of a whole part (absent, or not decodable).
    fn part_mismatch(&mut self, field: &str, module: String, part: String) {
        self.mismatches.push(Mismatch {
            field: field.into(),
            module,
            part,
            rule: "DXC DxilContainerAssembler: the part every non-library program has".into(),
        });
    }
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// The container holds no DXIL program (a DXBC container): nothing to check.
    NotDxil,
    /// A DXIL program, checked.
    Dxil(CheckReport),
}

/// Why a container could not be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The container is malformed.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The program's bitcode does not decode.
    #[error("DXIL part: {0}")]
    Module(#[from] LlvmError),
    /// The program's metadata does not decode.
    #[error("DXIL metadata: {0:?}")]
    Metadata(MetaError),
}

/// Checks a container's `PSV0` and `SFI0` against its DXIL module.
///
/// A part that does not decode is reported as a mismatch of that part (its error as
/// what the part states). A container without a `DXIL` part gives
/// [`Checked::NotDxil`].
pub fn check(bytes: &[u8]) -> Result<Checked, CheckError> {
    let c = Container::parse(bytes)?;
    let Some(part) = c.part(FourCc::DXIL) else {
        return Ok(Checked::NotDxil);
    };
    let (program, bitcode) = DxilProgramHeader::parse(part)?;
    let m = Module::parse(bitcode)?;
    let meta = DxilMetadata::read(&m).map_err(CheckError::Metadata)?;
    Ok(Checked::Dxil(check_decoded(
        &c,
        program.version.kind,
        &m,
        &meta,
    )))
}

/// [`check`] of a container whose module (`m`, a `kind` program) and metadata are
/// already decoded: the parts are compared with what `m` and `meta` imply. Lets a caller
/// ask what a container would be checked against for other metadata (another validator
/// version, another attribute).
pub fn check_decoded(
    c: &Container<'_>,
    kind: ProgramKind,
    m: &Module,
    meta: &DxilMetadata,
) -> CheckReport {
    let mut r = CheckReport::default();
    match c.part(FourCc(*b"PSV0")) {
        None if kind == ProgramKind::Library => {
            r.notes
                .push("no PSV0 (a library has none): pipeline state not checked".into());
        }
        None => r.part_mismatch(
            "PSV0 part",
            format!("a {} program", kind.name()),
            "absent".into(),
        ),
        Some(p) => match Psv0::parse(p, Some(kind)) {
            Ok(psv) => check_psv(&mut r, m, meta, kind, &psv),
            Err(e) => r.part_mismatch("PSV0 part", "a decodable record".into(), e.to_string()),
        },
    }
    match c.part(FourCc(*b"SFI0")) {
        None => r.notes.push("no SFI0: feature flags not checked".into()),
        Some(p) => match FeatureFlags::parse(p) {
            Ok(f) => check_features(&mut r, m, meta, kind, f.mask),
            Err(e) => r.part_mismatch("SFI0 part", "a decodable mask".into(), e.to_string()),
        },
    }
    r
}

// -------------------------------------------------------------------------------------
// PSV0
// -------------------------------------------------------------------------------------

/// PSV0 resource types (DXC `PSVResourceType`).
mod res_type {
    pub const SAMPLER: u32 = 1;
    pub const CBV: u32 = 2;
    pub const SRV_TYPED: u32 = 3;
    pub const SRV_RAW: u32 = 4;
    pub const SRV_STRUCTURED: u32 = 5;
    pub const UAV_TYPED: u32 = 6;
    pub const UAV_RAW: u32 = 7;
    pub const UAV_STRUCTURED: u32 = 8;
    pub const UAV_STRUCTURED_WITH_COUNTER: u32 = 9;
}

/// DXIL `ResourceKind` numbers used here.
mod kind {
    pub const RAW_BUFFER: u32 = 11;
    pub const STRUCTURED_BUFFER: u32 = 12;
    pub const CBUFFER: u32 = 13;
    pub const SAMPLER: u32 = 14;
    pub const RT_ACCELERATION_STRUCTURE: u32 = 16;
}

/// The PSV0 type, kind and flags dxc writes for a resource record
/// (`InitPSVResourceBinding`): raw and acceleration-structure SRVs are raw, a
/// structured UAV with a hidden counter is type 9, the kind is the record's shape (13
/// for constant buffers, 14 for samplers), the flags 1 (used by a 64-bit atomic) for
/// a UAV that is the target of one, else 0.
fn psv_resource(r: &Resource) -> (u32, u32, u32) {
    let shape = r.shape.unwrap_or(0);
    match r.class {
        ResourceClass::Cbv => (res_type::CBV, kind::CBUFFER, 0),
        ResourceClass::Sampler => (res_type::SAMPLER, kind::SAMPLER, 0),
        ResourceClass::Srv => {
            let t = match shape {
                kind::RAW_BUFFER | kind::RT_ACCELERATION_STRUCTURE => res_type::SRV_RAW,
                kind::STRUCTURED_BUFFER => res_type::SRV_STRUCTURED,
                _ => res_type::SRV_TYPED,
            };
            (t, shape, 0)
        }
        ResourceClass::Uav => {
            let t = match shape {
                kind::RAW_BUFFER => res_type::UAV_RAW,
                kind::STRUCTURED_BUFFER if r.has_counter => res_type::UAV_STRUCTURED_WITH_COUNTER,
                kind::STRUCTURED_BUFFER => res_type::UAV_STRUCTURED,
                _ => res_type::UAV_TYPED,
            };
            (t, shape, u32::from(r.atomic64))
        }
    }
}

/// DXIL `ComponentType` → PSV0/signature component type (DXC
/// `CompTypeToSigCompType`; seed `000_…`: PSV 1, 2, 3 are DXIL 5 (u32), 4 (i32),
/// 9 (f32)). `i1` is 1 (uint) from validator 1.5, 0 (unknown) before; normalised and
/// packed types are 0.
pub fn psv_component_type(dxil: u32, i1_unknown: bool) -> u32 {
    match dxil {
        1 if i1_unknown => 0,
        1 => 1,
        2 => 5,
        3 => 4,
        4 => 2,
        5 => 1,
        6 => 8,
        7 => 7,
        8 => 6,
        9 => 3,
        10 => 9,
        _ => 0,
    }
}

/// `DxilSignature::NumVectorsUsed`: the highest placed row plus rows over the
/// elements of a stream.
fn vectors_used(elems: &[SignatureElement], stream: u32) -> u32 {
    elems
        .iter()
        .filter(|e| e.start_row >= 0 && e.start_col >= 0 && e.stream.unwrap_or(0) == stream)
        .map(|e| e.start_row as u32 + e.rows)
        .max()
        .unwrap_or(0)
}

fn check_psv(r: &mut CheckReport, m: &Module, meta: &DxilMetadata, kind: ProgramKind, psv: &Psv0) {
    let ri = &psv.runtime_info;
    let entry = meta.entry_points.first();
    let val = meta.validator_version.unwrap_or((1, 0));
    let i1_unknown = val < (1, 5);

    // Resources: count, then each record in the order CBVs, samplers, SRVs, UAVs.
    r.rule(
        "DXC InitPSVResourceBinding: one record per dx.resources entry, CBVs, samplers, SRVs, UAVs \
         (kind and flags in the 24-byte records of validator 1.6+)",
    );
    let empty = Vec::new();
    let res = meta.resources.as_ref();
    let ordered: Vec<&Resource> = [
        res.map_or(&empty, |r| &r.cbvs),
        res.map_or(&empty, |r| &r.samplers),
        res.map_or(&empty, |r| &r.srvs),
        res.map_or(&empty, |r| &r.uavs),
    ]
    .into_iter()
    .flatten()
    .collect();
    r.eq(
        || "PSV0 resource count".into(),
        ordered.len(),
        psv.resources.len(),
    );
    for (i, (want, got)) in ordered.iter().zip(&psv.resources).enumerate() {
        let (t, k, flags) = psv_resource(want);
        let upper = if want.range_size == u32::MAX {
            u32::MAX
        } else {
            want.lower_bound
                .wrapping_add(want.range_size)
                .wrapping_sub(1)
        };
        r.eq(
            || format!("PSV0 resource {i} type"),
            t,
            got.resource_type.code(),
        );
        r.eq(|| format!("PSV0 resource {i} space"), want.space, got.space);
        r.eq(
            || format!("PSV0 resource {i} lower bound"),
            want.lower_bound,
            got.lower_bound,
        );
        r.eq(
            || format!("PSV0 resource {i} upper bound"),
            upper,
            got.upper_bound,
        );
        if let Some(gk) = got.kind {
            r.eq(|| format!("PSV0 resource {i} kind"), k, gk.code());
        }
        if let Some(gf) = got.flags {
            r.eq(|| format!("PSV0 resource {i} flags"), flags, gf);
        }
    }

    r.rule("DXC SetupPSVInitInfo: stage, view id and signature counts (validator 1.1+)");
    let Some(v1) = &ri.v1 else {
        r.notes
            .push("PSV0 runtime info of 24 bytes: no stage or signature records".into());
        check_stage_words(r, m, meta, entry, kind, psv);
        return;
    };
    r.eq(
        || "PSV0 shader stage".into(),
        kind.code(),
        v1.shader_stage.code(),
    );
    let flags = entry.and_then(EntryPoint::flags).unwrap_or(0);
    r.eq(
        || "PSV0 uses view id".into(),
        flags & (1 << 21) != 0,
        v1.uses_view_id,
    );

    let sigs = entry.and_then(|e| e.signatures.as_ref());
    let no = Vec::new();
    let (ins, outs, pcs) = match sigs {
        Some(s) => (&s.inputs, &s.outputs, &s.patch_constants),
        None => (&no, &no, &no),
    };
    r.eq(
        || "PSV0 input element count".into(),
        ins.len(),
        usize::from(v1.input_elements),
    );
    r.eq(
        || "PSV0 output element count".into(),
        outs.len(),
        usize::from(v1.output_elements),
    );
    r.eq(
        || "PSV0 patch-constant element count".into(),
        pcs.len(),
        usize::from(v1.patch_constant_elements),
    );
    for (set, want, got) in [
        ("input", ins, &psv.inputs),
        ("output", outs, &psv.outputs),
        ("patch-constant", pcs, &psv.patch_constants),
    ] {
        r.eq(
            || format!("PSV0 {set} elements listed"),
            want.len(),
            got.len(),
        );
        for (i, (w, g)) in want.iter().zip(got).enumerate() {
            check_element(r, &format!("PSV0 {set} element {i}"), w, g, i1_unknown, val);
        }
    }

    // Vector counts: the highest placed row plus rows.
    r.rule("DXC DxilSignature::NumVectorsUsed: highest placed row plus rows, per stream");
    r.eq(
        || "PSV0 input vectors".into(),
        vectors_used(ins, 0),
        u32::from(v1.input_vectors),
    );
    for (s, got) in v1.output_vectors.iter().enumerate() {
        r.eq(
            || format!("PSV0 output vectors of stream {s}"),
            vectors_used(outs, s as u32),
            u32::from(*got),
        );
    }
    if matches!(
        kind,
        ProgramKind::Hull | ProgramKind::Domain | ProgramKind::Mesh
    ) {
        r.eq(
            || "PSV0 patch-constant vectors".into(),
            vectors_used(pcs, 0),
            u32::from(v1.patch_constant_vectors()),
        );
    }

    check_stage_words(r, m, meta, entry, kind, psv);

    // Thread group (48-byte and larger records).
    r.rule("DXC SetShaderProps(PSVRuntimeInfo2): numthreads of compute, mesh and amplification programs (validator 1.6+)");
    if let Some(n) = ri.num_threads {
        let want = match kind {
            ProgramKind::Compute | ProgramKind::Mesh | ProgramKind::Amplification => {
                entry.and_then(EntryPoint::num_threads).unwrap_or([0; 3])
            }
            _ => [0; 3],
        };
        r.eq(
            || "PSV0 thread group".into(),
            format!("{} x {} x {}", want[0], want[1], want[2]),
            format!("{} x {} x {}", n[0], n[1], n[2]),
        );
    }

    // Entry name (52-byte records).
    r.rule("DXC DxilPSVWriter (PSVRuntimeInfo3, validator 1.8+): the entry function's name");
    if ri.entry_name_offset.is_some() {
        r.eq(
            || "PSV0 entry name".into(),
            entry.map(|e| e.name.as_str()).unwrap_or(""),
            ri.entry_name
                .as_deref()
                .unwrap_or("<outside the string table>"),
        );
    }

    // Dependency tables: their shapes from the module's vector counts.
    r.rule("DXC ComputeSeriaizedViewIDStateSizeInUInts: table shapes from the vector counts (seed 000)");
    let expected = expected_tables(
        kind,
        flags & (1 << 21) != 0,
        vectors_used(ins, 0),
        [0, 1, 2, 3].map(|s| vectors_used(outs, s)),
        vectors_used(pcs, 0),
    );
    let shapes = |t: &[(String, u32, u32)]| -> String {
        t.iter()
            .map(|(n, r, w)| format!("{n} {r}x{w}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let got: Vec<(String, u32, u32)> = psv
        .dependency_tables
        .iter()
        .map(|t: &DependencyTable| (t.name.clone(), t.rows, t.words_per_row))
        .collect();
    r.eq(
        || "PSV0 dependency tables".into(),
        shapes(&expected),
        shapes(&got),
    );
}

/// The dependency tables dxc writes for these vector counts (seed `000_…`: input
/// vectors × 4 rows of `ceil(output vectors × 4 / 32)` words per stream; a hull or
/// mesh program adds input → patch-constant rows, a domain program patch-constant →
/// output rows; view-id masks first when the program uses view ids).
fn expected_tables(
    kind: ProgramKind,
    view_id: bool,
    input: u32,
    outputs: [u32; 4],
    pc: u32,
) -> Vec<(String, u32, u32)> {
    let hull_or_mesh = matches!(kind, ProgramKind::Hull | ProgramKind::Mesh);
    let pc = if matches!(
        kind,
        ProgramKind::Hull | ProgramKind::Domain | ProgramKind::Mesh
    ) {
        pc
    } else {
        0
    };
    let mut t = Vec::new();
    if view_id {
        for (s, &o) in outputs.iter().enumerate() {
            if o != 0 {
                t.push((format!("view_id_to_output[stream {s}]"), 1, mask_words(o)));
            }
        }
        if hull_or_mesh && pc != 0 {
            t.push(("view_id_to_patch_constant".into(), 1, mask_words(pc)));
        }
    }
    for (s, &o) in outputs.iter().enumerate() {
        if o != 0 {
            t.push((
                format!("input_to_output[stream {s}]"),
                input * 4,
                mask_words(o),
            ));
        }
    }
    if hull_or_mesh && pc != 0 && input != 0 {
        t.push(("input_to_patch_constant".into(), input * 4, mask_words(pc)));
    }
    if kind == ProgramKind::Domain && outputs[0] != 0 && pc != 0 {
        t.push((
            "patch_constant_to_output".into(),
            pc * 4,
            mask_words(outputs[0]),
        ));
    }
    t.retain(|&(_, rows, words)| rows > 0 && words > 0);
    t
}

/// The semantic indices a PSV0 element's table entry must hold: the element's first
/// `rows` indices. DXC's `DxilPSVWriter` looks for an earlier run of the element's first
/// `rows` indices in the table and appends the *whole* list only when there is none, so
/// an element whose list is longer than its rows (mesh outputs such as
/// `float4 v[4] : SV_Position`) finds only its first `rows` indices at its offset.
pub fn psv_semantic_indices(indices: &[u32], rows: u32) -> &[u32] {
    let n = usize::try_from(rows)
        .unwrap_or(usize::MAX)
        .min(indices.len());
    indices.get(..n).unwrap_or(indices)
}

fn check_element(
    r: &mut CheckReport,
    at: &str,
    w: &SignatureElement,
    g: &PsvElement,
    i1_unknown: bool,
    val: (u32, u32),
) {
    let name = if w.semantic_kind == 0 {
        w.name.as_str()
    } else {
        ""
    };
    r.rule(
        "DXC InitPSVSignatureElement: the name of an arbitrary semantic, empty for a system value",
    );
    r.eq(|| format!("{at} name"), name, g.name.as_str());
    r.rule(
        "DXC DxilPSVWriter: the element's first `rows` semantic indices at its table offset \
         (a longer list is appended whole; every validator version)",
    );
    r.eq(
        || format!("{at} semantic indices"),
        format!("{:?}", psv_semantic_indices(&w.semantic_indices, w.rows)),
        format!("{:?}", g.semantic_indices),
    );
    r.rule("DXC InitPSVSignatureElement: rows, columns, placement, kind, interpolation, stream");
    r.eq(|| format!("{at} rows"), w.rows, u32::from(g.rows));
    r.eq(|| format!("{at} columns"), w.cols, u32::from(g.columns));
    let allocated = w.start_row >= 0 && w.start_col >= 0;
    r.eq(|| format!("{at} allocated"), allocated, g.allocated);
    if allocated {
        r.eq(
            || format!("{at} start row"),
            w.start_row as u32,
            u32::from(g.start_row),
        );
        r.eq(
            || format!("{at} start column"),
            w.start_col as u32,
            u32::from(g.start_column),
        );
    }
    r.eq(
        || format!("{at} semantic kind"),
        w.semantic_kind,
        u32::from(g.semantic_kind.code()),
    );
    r.eq(
        || format!("{at} interpolation mode"),
        w.interpolation,
        u32::from(g.interpolation_mode.code()),
    );
    r.rule(format!(
        "DXC CompTypeToSigCompType: i1 is {} for validator {}.{} ({} 1.5)",
        if i1_unknown {
            "unknown (0)"
        } else {
            "uint (1)"
        },
        val.0,
        val.1,
        if i1_unknown { "before" } else { "from" }
    ));
    r.eq(
        || format!("{at} component type"),
        psv_component_type(w.component_type, i1_unknown),
        g.component_type.code(),
    );
    r.rule("DXC InitPSVSignatureElement: rows, columns, placement, kind, interpolation, stream");
    r.eq(
        || format!("{at} dynamic index mask"),
        w.dynamic_index_mask.unwrap_or(0),
        u32::from(g.dynamic_index_mask),
    );
    r.eq(
        || format!("{at} stream"),
        w.stream.unwrap_or(0),
        u32::from(g.stream),
    );
}

/// The stage words (DXC `SetShaderProps`): a vertex program's position-output byte; a
/// pixel program's depth-output and sample-frequency bytes; a hull program's control
/// points, domain and output primitive; a domain program's control points, position
/// byte and domain; a geometry program's input primitive, output topology, stream mask
/// (1 when no stream is active) and position byte, and its maximum vertex count in the
/// stage word; a mesh program's group-shared bytes, payload size, output limits and
/// topology; an amplification program's payload size; the wave lane range (a compute program's required wave size, else 0 and
/// 0xffffffff).
fn check_stage_words(
    r: &mut CheckReport,
    m: &Module,
    meta: &DxilMetadata,
    entry: Option<&EntryPoint>,
    kind: ProgramKind,
    psv: &Psv0,
) {
    let ri = &psv.runtime_info;
    let w = ri.stage_words;
    r.rule("DXC SetShaderProps: the stage's words of PSVRuntimeInfo0/1");
    let byte = |word: u32, i: u32| (word >> (8 * i)) & 0xff;
    let sigs = entry.and_then(|e| e.signatures.as_ref());
    let outputs_have =
        |k: &[u32]| sigs.is_some_and(|s| s.outputs.iter().any(|e| k.contains(&e.semantic_kind)));
    let position = u32::from(outputs_have(&[3]));
    let prop =
        |tag: u32| entry.and_then(|e| e.properties.iter().find(|(t, _)| *t == tag).map(|p| &p.1));
    let ints = |tag: u32| -> Vec<i64> {
        match prop(tag) {
            Some(Property::Geometry(v) | Property::Domain(v)) => v.clone(),
            Some(Property::Hull { values, .. }) => values.clone(),
            _ => Vec::new(),
        }
    };
    let at = |v: &[i64], i: usize| v.get(i).copied().unwrap_or(0) as u32;
    match kind {
        ProgramKind::Vertex => {
            r.eq(
                || "PSV0 vertex output position present".into(),
                position,
                byte(w[0], 0),
            );
        }
        ProgramKind::Pixel => {
            let depth = u32::from(outputs_have(&[17, 18, 19]));
            let sample = u32::from(sigs.is_some_and(|s| {
                s.inputs
                    .iter()
                    .any(|e| matches!(e.interpolation, 6 | 7) || e.semantic_kind == 12)
            }));
            r.eq(|| "PSV0 pixel depth output".into(), depth, byte(w[0], 0));
            r.eq(
                || "PSV0 pixel sample frequency".into(),
                sample,
                byte(w[0], 1),
            );
        }
        ProgramKind::Hull => {
            // Tag 3: patch-constant function, input and output control points, domain,
            // partitioning, output primitive, max tessellation factor.
            let h = ints(3);
            r.eq(|| "PSV0 hull input control points".into(), at(&h, 0), w[0]);
            r.eq(|| "PSV0 hull output control points".into(), at(&h, 1), w[1]);
            r.eq(|| "PSV0 hull tessellator domain".into(), at(&h, 2), w[2]);
            r.eq(|| "PSV0 hull output primitive".into(), at(&h, 4), w[3]);
        }
        ProgramKind::Domain => {
            // Tag 2: tessellator domain, input control points.
            let d = ints(2);
            r.eq(
                || "PSV0 domain input control points".into(),
                at(&d, 1),
                w[0],
            );
            r.eq(
                || "PSV0 domain output position present".into(),
                position,
                byte(w[1], 0),
            );
            r.eq(|| "PSV0 domain tessellator domain".into(), at(&d, 0), w[2]);
        }
        ProgramKind::Geometry => {
            // Tag 1: input primitive, max vertex count, active stream mask, output
            // topology, instance count.
            let g = ints(1);
            let mask = match at(&g, 2) {
                0 => 1,
                m => m,
            };
            r.eq(|| "PSV0 geometry input primitive".into(), at(&g, 0), w[0]);
            r.eq(|| "PSV0 geometry output topology".into(), at(&g, 3), w[1]);
            r.eq(|| "PSV0 geometry stream mask".into(), mask, w[2]);
            r.eq(
                || "PSV0 geometry output position present".into(),
                position,
                byte(w[3], 0),
            );
            if let Some(v1) = &ri.v1 {
                r.eq(
                    || "PSV0 geometry max vertex count".into(),
                    at(&g, 1),
                    u32::from(v1.stage_word),
                );
            }
        }
        ProgramKind::Mesh => {
            // Tag 9: thread group, then max vertices, max primitives, output
            // topology, payload size. PSV0: group-shared bytes (every group-shared
            // global's allocation size), view-id-dependent bytes, payload, max
            // vertices and primitives (16 bits each); the topology in the stage word's
            // high byte.
            if let Some(Property::Mesh { values, .. }) = prop(9) {
                let dl = crate::dxil::listing::layout::DataLayout::of(m);
                let shared: u64 = m
                    .globals
                    .iter()
                    .filter(|g| g.address_space == 3)
                    .map(|g| dl.alloc_size(m, g.value_ty))
                    .sum();
                r.eq(
                    || "PSV0 mesh group-shared bytes".into(),
                    shared,
                    u64::from(w[0]),
                );
                r.eq(|| "PSV0 mesh payload size".into(), at(values, 3), w[2]);
                r.eq(
                    || "PSV0 mesh max output vertices".into(),
                    at(values, 0),
                    w[3] & 0xffff,
                );
                r.eq(
                    || "PSV0 mesh max output primitives".into(),
                    at(values, 1),
                    w[3] >> 16,
                );
                if let Some(v1) = &ri.v1 {
                    r.eq(
                        || "PSV0 mesh output topology".into(),
                        at(values, 2),
                        u32::from(v1.stage_word >> 8),
                    );
                }
            }
        }
        ProgramKind::Amplification => {
            // Tag 10: thread group, then payload size.
            if let Some(Property::Amplification { values, .. }) = prop(10) {
                r.eq(
                    || "PSV0 amplification payload size".into(),
                    at(values, 0),
                    w[0],
                );
            }
        }
        _ => {}
    }
    r.rule(
        "DXC SetShaderProps: a compute program's [WaveSize] (tag 11, or the SM 6.8 ranged tag 23: \
         min and max), else 0 and 0xffffffff; other stages always 0 and 0xffffffff",
    );
    let wave = match (kind, entry.and_then(EntryPoint::wave_size)) {
        (ProgramKind::Compute, Some(w)) => (w.min, w.upper()),
        _ => (0, u32::MAX),
    };
    r.eq(
        || "PSV0 wave lane range".into(),
        format!("{}..{}", wave.0, wave.1),
        format!("{}..{}", ri.min_wave_lanes, ri.max_wave_lanes),
    );
    let _ = meta;
}

// -------------------------------------------------------------------------------------
// SFI0
// -------------------------------------------------------------------------------------

/// One feature bit the module implies: the bit, and whether the module requires it.
/// `exact` bits must equal `SFI0`; the others must only be set when required (a bit the
/// module requires must be set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedFeature {
    /// The bit number.
    pub bit: u32,
    /// Whether the module requires it.
    pub required: bool,
    /// Whether `SFI0` must state exactly this (else only "required implies set").
    pub exact: bool,
    /// The rule applied, for this module's validator version (DXC source and function;
    /// `docs/info-check.md` has the table).
    pub rule: String,
}

/// What a handle resolves to, for the feature rules that look at resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HandleInfo {
    /// The resource kind (DXIL `ResourceKind`).
    kind: u32,
    /// Whether it is a UAV.
    uav: bool,
    /// Components of a typed resource's element.
    components: u32,
    /// The handle is bound to a resource record the module lists (not a descriptor
    /// heap handle).
    bound: bool,
}

struct FeatureScan<'m> {
    m: &'m Module,
    meta: &'m DxilMetadata,
}

impl<'m> FeatureScan<'m> {
    fn inst_result(&self, body: &'m FunctionBody, v: ValueId) -> Option<&'m InstKind> {
        match self.m.value(Some(body), v)?.kind {
            ValueKind::Instruction(i) => body.instructions.get(i as usize).map(|x| &x.kind),
            _ => None,
        }
    }

    fn const_int(&self, body: &FunctionBody, v: ValueId) -> Option<i64> {
        match &self.m.value(Some(body), v)?.kind {
            ValueKind::Constant(c) => c.as_int(),
            _ => None,
        }
    }

    fn dx_op(&self, body: &'m FunctionBody, k: &'m InstKind) -> Option<(u32, &'m [Operand])> {
        let InstKind::Call { callee, args, .. } = k else {
            return None;
        };
        let f = self.m.function_of_value(*callee)?;
        if !f.name.starts_with(dxop::DX_OP_PREFIX) {
            return None;
        }
        let op = args.first()?.value()?;
        Some((self.const_int(body, op)? as u32, args.as_slice()))
    }

    /// Whether value `v` is an LLVM constant (undef included), as `isa<Constant>`.
    fn is_constant(&self, body: &FunctionBody, v: Option<ValueId>) -> bool {
        v.and_then(|v| self.m.value(Some(body), v))
            .is_some_and(|x| matches!(x.kind, ValueKind::Constant(_)))
    }

    /// DXC `hasNonConstantSampleOffsets` / the `TextureLoad` case of
    /// `CollectShaderFlags`: any of the three offset operands (from operand `first`,
    /// the opcode being operand 0) is not a constant.
    fn offsets_vary(&self, body: &FunctionBody, args: &[Operand], first: usize) -> bool {
        (first..first + 3).any(|i| !self.is_constant(body, args.get(i).and_then(|a| a.value())))
    }

    /// DXC `hasSampleClamp`: the last operand (the LOD clamp) is a nonzero float
    /// constant, or not a constant or undef at all.
    fn has_clamp(&self, body: &FunctionBody, args: &[Operand]) -> bool {
        let Some(v) = args.last().and_then(|a| a.value()) else {
            return false;
        };
        match self.m.value(Some(body), v).map(|x| &x.kind) {
            // +0 and −0 are zero in every width the overload allows.
            Some(ValueKind::Constant(Constant::Float(bits))) => {
                !matches!(*bits, 0 | 0x8000 | 0x8000_0000 | 0x8000_0000_0000_0000)
            }
            Some(ValueKind::Constant(Constant::Undef | Constant::Null)) => false,
            Some(ValueKind::Constant(_)) => true,
            _ => true,
        }
    }

    /// DXC `FindCallToCreateHandle`: through phis (first incoming) and selects (true
    /// value) to the call that made the handle (`None` past an opcode DXIL.rst does not
    /// list).
    fn handle_call(&self, body: &'m FunctionBody, mut v: ValueId) -> Option<(DxOp, &'m [Operand])> {
        for _ in 0..64 {
            let k = self.inst_result(body, v)?;
            match k {
                InstKind::Phi { incoming } => v = incoming.first()?.0,
                InstKind::Select { if_true, .. } => v = *if_true,
                InstKind::Call { .. } => {
                    let (opcode, args) = self.dx_op(body, k)?;
                    return Some((DxOp::from_code(opcode)?, args));
                }
                _ => return None,
            }
        }
        None
    }

    /// The element component count of a resource record (its HLSL type's first
    /// field: a vector's length, else 1).
    fn record_components(&self, r: &Resource) -> u32 {
        let Some(Type::Pointer { pointee, .. }) = r.symbol_ty.and_then(|t| self.m.ty(t)) else {
            return 1;
        };
        let mut t: TypeId = *pointee;
        while let Some(Type::Array { element, .. }) = self.m.ty(t) {
            t = *element;
        }
        match self.m.ty(t) {
            Some(Type::Struct { elements, .. }) => {
                match elements.first().and_then(|e| self.m.ty(*e)) {
                    Some(Type::Vector { len, .. }) => *len as u32,
                    _ => 1,
                }
            }
            _ => 1,
        }
    }

    fn record_info(&self, r: &Resource) -> HandleInfo {
        HandleInfo {
            kind: r.shape.unwrap_or(0),
            uav: r.class == ResourceClass::Uav,
            components: self.record_components(r),
            bound: true,
        }
    }

    /// DXC `GetResourcePropertyFromHandleCall` (and `GetResourceFromAnnotateHandle` for
    /// `bound`).
    fn handle_info(&self, body: &'m FunctionBody, v: ValueId) -> Option<HandleInfo> {
        let (op, args) = self.handle_call(body, v)?;
        let arg = |i: usize| args.get(i).and_then(|a| a.value());
        let res = self.meta.resources.as_ref();
        match op {
            // CreateHandle(class, rangeId, index, nonUniform).
            DxOp::CreateHandle => {
                let class = self.const_int(body, arg(1)?)?;
                let mut id_v = arg(2)?;
                for _ in 0..64 {
                    match self.inst_result(body, id_v) {
                        Some(InstKind::Phi { incoming }) => id_v = incoming.first()?.0,
                        Some(InstKind::Select { if_true, .. }) => id_v = *if_true,
                        _ => break,
                    }
                }
                let id = self.const_int(body, id_v)? as usize;
                let list = match class {
                    0 => &res?.srvs,
                    1 => &res?.uavs,
                    _ => return None,
                };
                let mut info = self.record_info(list.get(id)?);
                // Only annotated binding handles count as bound for the 64-bit atomic
                // rule (DXC `GetResourceFromAnnotateHandle`).
                info.bound = false;
                Some(info)
            }
            // AnnotateHandle(res, props).
            DxOp::AnnotateHandle => {
                let props = arg(2)?;
                let words = match &self.m.value(Some(body), props)?.kind {
                    ValueKind::Constant(Constant::Aggregate(e)) => {
                        let w = |i: usize| e.get(i).and_then(|x| self.const_int(body, *x));
                        [w(0)? as u32, w(1)? as u32]
                    }
                    ValueKind::Constant(Constant::Null) => [0, 0],
                    _ => return None,
                };
                let created = self.handle_call(body, arg(1)?);
                let bound = matches!(
                    created,
                    Some((DxOp::CreateHandleFromBinding | DxOp::CreateHandleForLib, _))
                );
                Some(HandleInfo {
                    kind: words[0] & 0xff,
                    uav: words[0] & (1 << 12) != 0,
                    components: (words[1] >> 8) & 0xff,
                    bound,
                })
            }
            _ => None,
        }
    }
}

/// Whether a DXIL `ResourceKind` is a typed resource (textures and typed buffers,
/// DXC `DXIL::IsTyped`).
fn is_typed(kind: u32) -> bool {
    (1..=10).contains(&kind)
}

/// Whether an operation is a wave or quad operation (DXC `OP::IsDxilOpWave`): the
/// `wave*` and `quad*` operation classes, wave matrices excepted.
fn is_wave_op(op: DxOp) -> bool {
    dxop::op_info(op.code())
        .and_then(|i| i.class)
        .is_some_and(|c| {
            (c.starts_with("wave") && !c.starts_with("waveMatrix")) || c.starts_with("quad")
        })
}

/// The `SFI0` bits the module implies, following DirectXShaderCompiler's
/// `ShaderFlags::CollectShaderFlags` (per function, over its instructions, skipping
/// calls to functions other than `dx.op.*` and `extractelement`/`insertelement`) and
/// `DxilModule::CollectShaderFlagsForModule`, for the module's validator version
/// (`dx.valver`; 1.0 when absent). Each bit's rule, with the versions it depends on, is
/// its [`ExpectedFeature::rule`]; `docs/info-check.md` has the whole table:
///
/// - 0 doubles: an instruction of or with a `double` operand; 5 (double extensions): a
///   double `fdiv`, int ↔ float conversion or `Fma`; 6: `Msad`;
/// - 15 64-bit integers: an `i64` instruction or operand; 23: such an `atomicrmw` or
///   `cmpxchg`; 22: a 64-bit `AtomicBinOp`/`AtomicCompareExchange` on a typed
///   resource; 28: the same on a handle not made from a listed binding;
/// - 4 minimum precision / 18 native low precision: a `half` or `i16` instruction or
///   operand, 4 without and 18 with the native-low-precision shader flag (bit 23);
/// - 14 wave operations: any wave or quad operation;
/// - 3 64 UAV slots: more than 8 UAV records before validator 1.6, more than 8 slots
///   from 1.6 (a range of more than 8 counts as 9);
/// - 2 UAVs at every stage: any UAV outside compute and pixel programs (libraries and
///   mesh programs included) before validator 1.8; from 1.8 only in vertex, hull,
///   domain and geometry programs;
/// - 12 a rasterizer-ordered UAV;
/// - 8 tiled resources: `CheckAccessFullyMapped`, and from validator 1.8 a LOD clamp
///   (`Sample`, `SampleBias`, `SampleCmp`, `SampleCmpBias`, `SampleGrad`,
///   `SampleCmpGrad` whose last operand is not a zero constant or undef);
/// - 9 a pixel program writing `SV_StencilRef`; 10 `InnerCoverage`; 11 a typed UAV load
///   of more than one component (any UAV load for validator 1.0); 13
///   `SV_RenderTargetArrayIndex`/`SV_ViewportArrayIndex` written by a vertex, hull or
///   domain program or read by a geometry (and from validator 1.4 hull or domain)
///   program; 16 `ViewID`; 17 `SV_Barycentrics` or `AttributeAtVertex` (validator 1.6
///   on); 19 `SV_ShadingRate`; 24 derivatives or implicit-LOD sampling in mesh and
///   amplification programs; 25/26 `CreateHandleFromHeap` of the resource / sampler
///   heap;
/// - 29 advanced texture operations: `TextureGatherRaw`, `SampleCmpLevel`,
///   `TextureStoreSample`, or a `TextureLoad`, `SampleLevel`, `SampleCmpLevelZero`,
///   `SampleGrad`, `SampleCmpGrad`, `Sample`, `SampleBias`, `SampleCmp` or
///   `SampleCmpBias` with an offset that is not a constant;
/// - 30 writeable MSAA textures: `TextureStoreSample`, and a declared
///   RWTexture2DMS\[Array\] before validator 1.8, a handle made to one from 1.8;
/// - 31 `SampleCmpGrad`/`SampleCmpBias`: DXC *assigns* the flag at each `Sample`,
///   `SampleBias`, `SampleCmp`, `SampleCmpBias`, `SampleGrad` and `SampleCmpGrad`, so in
///   each function the last of those decides it; 32
///   `StartVertexLocation`/`StartInstanceLocation` (DXIL.rst "Shader Flags");
/// - 20 (ray queries): `AllocateRayQuery` or `GeometryIndex` require it; a library may
///   set it for its subobjects, which are not checked (one direction only).
///
/// Seed `000_…` ("Feature mask") states bits 14, 3 and 25 exactly match what the
/// module uses in every container it counts.
pub fn expected_features(
    m: &Module,
    meta: &DxilMetadata,
    kind: ProgramKind,
) -> Vec<ExpectedFeature> {
    let scan = FeatureScan { m, meta };
    let val = meta.validator_version.unwrap_or((1, 0));
    let v18 = val >= (1, 8);
    let flags = meta
        .entry_points
        .iter()
        .find_map(EntryPoint::flags)
        .unwrap_or(0);
    let native = flags & (1 << 23) != 0;
    let (mut double, mut double_ext, mut int64, mut has16, mut wave) =
        (false, false, false, false, false);
    let (mut tiled, mut msad, mut inner, mut view_id, mut uav_loads) =
        (false, false, false, false, false);
    let (mut rq, mut bary, mut at64_typed, mut at64_shared, mut at64_heap) =
        (false, false, false, false, false);
    let (mut deriv_ms, mut heap_res, mut heap_smp) = (false, false, false);
    let (mut advanced_tex, mut msaa_store, mut cmp_grad_bias, mut cmd_info) =
        (false, false, false, false);
    let (mut lod_clamp, mut msaa_handle) = (false, false);
    let ty_is = |t: TypeId, want: &Type| m.ty(t) == Some(want);
    let ms_or_as = matches!(kind, ProgramKind::Mesh | ProgramKind::Amplification);
    for f in &m.functions {
        let Some(body) = &f.body else { continue };
        // DXC assigns SampleCmpGradientOrBias at each sample operation of the function.
        let mut cmp_grad_bias_here = false;
        for inst in &body.instructions {
            let call_op = match &inst.kind {
                InstKind::Call { .. } => match scan.dx_op(body, &inst.kind) {
                    Some(x) => Some(x),
                    None => continue,
                },
                InstKind::ExtractElement { .. } | InstKind::InsertElement { .. } => continue,
                _ => None,
            };
            let mut types = vec![inst.ty];
            for v in inst.kind.value_operands() {
                if let Some(x) = m.value(Some(body), v) {
                    types.push(x.ty);
                }
            }
            let is_double = types.iter().any(|t| ty_is(*t, &Type::Double));
            let is_half = types.iter().any(|t| ty_is(*t, &Type::Half));
            let is_i16 = types.iter().any(|t| ty_is(*t, &Type::Integer(16)));
            let is_i64 = types.iter().any(|t| ty_is(*t, &Type::Integer(64)));
            if is_double {
                double = true;
                if matches!(
                    &inst.kind,
                    InstKind::Binary {
                        op: crate::dxil::llvm::BinOp::SDiv,
                        ..
                    } | InstKind::Cast {
                        op: crate::dxil::llvm::CastOp::UiToFp
                            | crate::dxil::llvm::CastOp::SiToFp
                            | crate::dxil::llvm::CastOp::FpToUi
                            | crate::dxil::llvm::CastOp::FpToSi,
                        ..
                    }
                ) {
                    double_ext = true;
                }
            }
            if is_i64 {
                int64 = true;
                if matches!(
                    inst.kind,
                    InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. }
                ) {
                    at64_shared = true;
                }
            }
            has16 |= is_half || is_i16;
            let Some((opcode, args)) = call_op else {
                continue;
            };
            // No rule looks at an opcode DXIL.rst does not list.
            let Some(op) = DxOp::from_code(opcode) else {
                continue;
            };
            let arg = |i: usize| args.get(i).and_then(|a| a.value());
            if is_wave_op(op) {
                wave = true;
            }
            match op {
                DxOp::CheckAccessFullyMapped => tiled = true,
                DxOp::Msad => msad = true,
                DxOp::Fma => double_ext |= is_double,
                DxOp::InnerCoverage => inner = true,
                DxOp::ViewID => view_id = true,
                DxOp::AllocateRayQuery | DxOp::GeometryIndex => rq = true,
                DxOp::AttributeAtVertex => bary = true,
                DxOp::TextureLoad | DxOp::BufferLoad => {
                    if op == DxOp::TextureLoad && scan.offsets_vary(body, args, 6) {
                        advanced_tex = true;
                    }
                    if let Some(h) = arg(1).and_then(|h| scan.handle_info(body, h))
                        && h.uav
                        && (val == (1, 0) || (is_typed(h.kind) && h.components > 1))
                    {
                        uav_loads = true;
                    }
                }
                DxOp::AtomicBinOp | DxOp::AtomicCompareExchange if is_i64 => {
                    let h = arg(1).and_then(|h| scan.handle_info(body, h));
                    if h.is_some_and(|h| is_typed(h.kind)) {
                        at64_typed = true;
                    }
                    if !h.is_some_and(|h| h.bound) {
                        at64_heap = true;
                    }
                }
                DxOp::SampleLevel | DxOp::SampleCmpLevelZero => {
                    advanced_tex |= scan.offsets_vary(body, args, 7);
                }
                DxOp::Sample
                | DxOp::SampleBias
                | DxOp::SampleCmp
                | DxOp::SampleCmpBias
                | DxOp::SampleGrad
                | DxOp::SampleCmpGrad => {
                    advanced_tex |= scan.offsets_vary(body, args, 7);
                    lod_clamp |= scan.has_clamp(body, args);
                    cmp_grad_bias_here = matches!(op, DxOp::SampleCmpBias | DxOp::SampleCmpGrad);
                    if ms_or_as && !matches!(op, DxOp::SampleGrad | DxOp::SampleCmpGrad) {
                        deriv_ms = true;
                    }
                }
                DxOp::DerivCoarseX
                | DxOp::DerivCoarseY
                | DxOp::DerivFineX
                | DxOp::DerivFineY
                | DxOp::CalculateLOD
                    if ms_or_as =>
                {
                    deriv_ms = true
                }
                DxOp::TextureGatherRaw | DxOp::SampleCmpLevel => advanced_tex = true,
                DxOp::TextureStoreSample => {
                    advanced_tex = true;
                    msaa_store = true;
                }
                DxOp::StartVertexLocation | DxOp::StartInstanceLocation => cmd_info = true,
                DxOp::CreateHandleFromHeap => {
                    if arg(2).and_then(|v| scan.const_int(body, v)).unwrap_or(0) != 0 {
                        heap_smp = true;
                    } else {
                        heap_res = true;
                    }
                }
                _ => {}
            }
            // Validator 1.8's `checkUsedHandle`: a handle made to a writeable multisampled
            // texture (through a listed binding or an annotation).
            if matches!(
                op,
                DxOp::CreateHandle | DxOp::CreateHandleForLib | DxOp::AnnotateHandle
            ) && let Some(v) = inst.result
                && scan
                    .handle_info(body, v)
                    .is_some_and(|h| h.uav && matches!(h.kind, 3 | 8))
            {
                msaa_handle = true;
            }
        }
        cmp_grad_bias |= cmp_grad_bias_here;
    }
    // Signature rules.
    let mut stencil = false;
    let mut shading = false;
    let mut rt_index = false;
    for e in &meta.entry_points {
        let Some(s) = &e.signatures else { continue };
        let check_in = kind == ProgramKind::Geometry
            || (val >= (1, 4) && matches!(kind, ProgramKind::Domain | ProgramKind::Hull));
        let check_out = matches!(
            kind,
            ProgramKind::Vertex | ProgramKind::Domain | ProgramKind::Hull
        );
        for i in &s.inputs {
            match i.semantic_kind {
                4 | 5 if check_in => rt_index = true,
                29 => shading = true,
                28 => bary = true,
                _ => {}
            }
        }
        for o in &s.outputs {
            match o.semantic_kind {
                4 | 5 if check_out => rt_index = true,
                20 if kind == ProgramKind::Pixel => stencil = true,
                15 if kind == ProgramKind::Pixel => inner = true,
                29 => shading = true,
                _ => {}
            }
        }
    }
    if val < (1, 6) {
        bary = false;
    }
    // Module-wide UAV rules.
    let uavs = meta
        .resources
        .as_ref()
        .map(|r| r.uavs.as_slice())
        .unwrap_or(&[]);
    let slots: u64 = uavs
        .iter()
        .map(|u| {
            if u.range_size > 8 {
                9
            } else {
                u64::from(u.range_size)
            }
        })
        .sum();
    let rov = uavs.iter().any(|u| u.rasterizer_ordered);
    let declared_msaa = uavs.iter().any(|u| matches!(u.shape, Some(3 | 8)));
    let library = kind == ProgramKind::Library;
    let v = format!("validator {}.{}", val.0, val.1);
    let (every_stage, every_stage_rule) = if v18 {
        (
            !uavs.is_empty()
                && matches!(
                    kind,
                    ProgramKind::Vertex
                        | ProgramKind::Hull
                        | ProgramKind::Domain
                        | ProgramKind::Geometry
                ),
            "a vertex, hull, domain or geometry program declaring a UAV (1.8+)",
        )
    } else {
        (
            slots > 0 && !matches!(kind, ProgramKind::Compute | ProgramKind::Pixel),
            "a UAV in any program but compute and pixel, libraries and mesh included (before 1.8)",
        )
    };
    let (many_uavs, many_uavs_rule) = if val >= (1, 6) {
        (
            slots > 8,
            "more than 8 UAV slots, a range of more than 8 counting 9 (1.6+)",
        )
    } else {
        (uavs.len() > 8, "more than 8 UAV records (before 1.6)")
    };
    let (tiled, tiled_rule) = if v18 {
        (
            tiled || lod_clamp,
            "CheckAccessFullyMapped, or a sample with a LOD clamp that is not a zero constant or undef (1.8+)",
        )
    } else {
        (
            tiled,
            "CheckAccessFullyMapped (a LOD clamp counts only from 1.8)",
        )
    };
    let (msaa, msaa_rule) = if v18 {
        (
            msaa_store || msaa_handle,
            "TextureStoreSample, or a handle made to an RWTexture2DMS[Array] (1.8+)",
        )
    } else {
        (
            msaa_store || declared_msaa,
            "TextureStoreSample, or an RWTexture2DMS[Array] declared (before 1.8)",
        )
    };
    let f = |bit: u32, required: bool, rule: &str| ExpectedFeature {
        bit,
        required,
        exact: true,
        rule: format!("DXC CollectShaderFlags, {v}: {rule}"),
    };
    let m_ = |bit: u32, required: bool, rule: &str| ExpectedFeature {
        bit,
        required,
        exact: true,
        rule: format!("DXC CollectShaderFlagsForModule, {v}: {rule}"),
    };
    vec![
        f(0, double, "an instruction of or with a double operand"),
        m_(2, every_stage, every_stage_rule),
        m_(3, many_uavs, many_uavs_rule),
        f(
            4,
            has16 && !native,
            "half or i16 values without -enable-16bit-types",
        ),
        f(5, double_ext, "double fdiv, int/float conversions or Fma"),
        f(6, msad, "Msad"),
        f(8, tiled, tiled_rule),
        f(9, stencil, "a pixel program writing SV_StencilRef"),
        f(
            10,
            inner,
            "InnerCoverage, or a pixel program's SV_InnerCoverage",
        ),
        f(
            11,
            uav_loads,
            if val == (1, 0) {
                "any UAV load (1.0)"
            } else {
                "a typed UAV load of more than one component (1.1+)"
            },
        ),
        m_(12, rov, "a rasterizer-ordered UAV"),
        f(
            13,
            rt_index,
            "SV_RenderTargetArrayIndex/SV_ViewportArrayIndex out of VS/HS/DS, into GS (and HS/DS from 1.4)",
        ),
        f(14, wave, "any wave or quad operation"),
        f(15, int64, "an instruction of or with an i64 operand"),
        f(16, view_id, "ViewID"),
        f(
            17,
            bary,
            "AttributeAtVertex or SV_Barycentrics (1.6+; never before)",
        ),
        f(
            18,
            has16 && native,
            "half or i16 values with -enable-16bit-types",
        ),
        f(19, shading, "SV_ShadingRate in a signature"),
        ExpectedFeature {
            bit: 20,
            required: rq,
            exact: !library,
            rule: format!(
                "DXC CollectShaderFlags, {v}: AllocateRayQuery or GeometryIndex{}",
                if library {
                    " (a library may also set it for subobjects: required implies set)"
                } else {
                    ""
                }
            ),
        },
        f(22, at64_typed, "a 64-bit atomic on a typed resource"),
        f(23, at64_shared, "a 64-bit atomicrmw/cmpxchg (group shared)"),
        f(
            24,
            deriv_ms,
            "derivatives or implicit-LOD sampling in a mesh or amplification program",
        ),
        f(25, heap_res, "CreateHandleFromHeap of the resource heap"),
        f(26, heap_smp, "CreateHandleFromHeap of the sampler heap"),
        f(
            28,
            at64_heap,
            "a 64-bit atomic on a handle not made from a listed binding",
        ),
        f(
            29,
            advanced_tex,
            "TextureGatherRaw, SampleCmpLevel, TextureStoreSample, or a load or sample with non-constant offsets",
        ),
        f(30, msaa, msaa_rule),
        f(
            31,
            cmp_grad_bias,
            "the last sample operation of a function is SampleCmpGrad or SampleCmpBias",
        ),
        f(32, cmd_info, "StartVertexLocation or StartInstanceLocation"),
    ]
}

fn check_features(
    r: &mut CheckReport,
    m: &Module,
    meta: &DxilMetadata,
    kind: ProgramKind,
    mask: u64,
) {
    for e in expected_features(m, meta, kind) {
        r.rule(e.rule.clone());
        let set = mask & (1u64 << e.bit) != 0;
        let name = crate::container::sfi0::feature_name(e.bit).unwrap_or("?");
        if e.exact {
            r.eq(|| format!("SFI0 bit {} ({name})", e.bit), e.required, set);
        } else {
            r.eq(
                || format!("SFI0 bit {} ({name}, required when used)", e.bit),
                e.required,
                set && e.required,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed `000_…`: PSV component types 1, 2, 3 are DXIL 5 (u32), 4 (i32), 9 (f32).
    #[test]
    fn component_types_map_as_the_seed_states() {
        assert_eq!(psv_component_type(5, false), 1);
        assert_eq!(psv_component_type(4, false), 2);
        assert_eq!(psv_component_type(9, false), 3);
        assert_eq!(psv_component_type(1, true), 0);
        assert_eq!(psv_component_type(1, false), 1);
        assert_eq!(psv_component_type(8, false), 6);
    }

    /// Seed `000_…`: dependency tables are input vectors × 4 rows of
    /// ceil(output vectors × 4 / 32) words; hull programs add input → patch constant.
    #[test]
    fn dependency_table_formula() {
        let t = expected_tables(ProgramKind::Hull, false, 2, [2, 0, 0, 0], 4);
        assert_eq!(
            t,
            vec![
                ("input_to_output[stream 0]".to_string(), 8, 1),
                ("input_to_patch_constant".to_string(), 8, 1),
            ]
        );
        let t = expected_tables(ProgramKind::Domain, false, 2, [9, 0, 0, 0], 3);
        assert_eq!(t[1], ("patch_constant_to_output".to_string(), 12, 2));
    }

    // ---- rules on hand-built modules ------------------------------------------------

    use crate::dxil::llvm::build::Mb;
    use crate::dxil::meta::Resources;

    const DL: &str =
        "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

    fn uav(shape: u32, range_size: u32) -> Resource {
        Resource {
            class: ResourceClass::Uav,
            id: 0,
            symbol: None,
            symbol_ty: None,
            name: String::new(),
            space: 0,
            lower_bound: 0,
            range_size,
            shape: Some(shape),
            sample_count: None,
            globally_coherent: false,
            has_counter: false,
            rasterizer_ordered: false,
            size: None,
            sampler_kind: None,
            element_type: None,
            struct_stride: None,
            atomic64: false,
            other_tags: Vec::new(),
        }
    }

    fn meta(val: (u32, u32), uavs: Vec<Resource>) -> DxilMetadata {
        DxilMetadata {
            validator_version: Some(val),
            resources: Some(Resources {
                uavs,
                ..Resources::default()
            }),
            ..DxilMetadata::default()
        }
    }

    fn bit(features: &[ExpectedFeature], b: u32) -> bool {
        features.iter().find(|f| f.bit == b).unwrap().required
    }

    fn empty_module() -> Module {
        let mut mb = Mb::new(DL);
        mb.block();
        mb.ret();
        mb.finish().0
    }

    /// SFI0 bit 2 (UAVs at every stage), DXC `DxilModule::CollectShaderFlagsForModule`:
    /// before validator 1.8 any program but compute and pixel with a UAV (libraries and
    /// mesh programs too); from 1.8 only vertex, hull, domain and geometry programs
    /// (DXIL.rst "Shader Flags", bit 16 of the shader flags; LLVM issue 112272 states
    /// the same split).
    #[test]
    fn uavs_at_every_stage_by_validator_version() {
        let m = empty_module();
        use ProgramKind as K;
        for (kind, v17, v18) in [
            (K::Library, true, false),
            (K::Mesh, true, false),
            (K::Amplification, true, false),
            (K::Vertex, true, true),
            (K::Hull, true, true),
            (K::Domain, true, true),
            (K::Geometry, true, true),
            (K::Compute, false, false),
            (K::Pixel, false, false),
        ] {
            for (val, want) in [((1, 7), v17), ((1, 8), v18)] {
                let f = expected_features(&m, &meta(val, vec![uav(11, 1)]), kind);
                assert_eq!(bit(&f, 2), want, "{kind:?} validator {val:?}");
            }
            let f = expected_features(&m, &meta((1, 8), vec![]), kind);
            assert!(!bit(&f, 2), "{kind:?} without UAVs");
        }
    }

    /// SFI0 bit 3 (64 UAV slots), DXC `CollectShaderFlagsForModule`: before validator
    /// 1.6 more than 8 UAV *records*; from 1.6 more than 8 slots, a range of more than 8
    /// counting 9 ("Maintain earlier erroneous counting of UAVs for compatibility").
    #[test]
    fn many_uavs_count_records_before_1_6() {
        let m = empty_module();
        let ranged = vec![uav(11, 1), uav(11, 8)];
        let nine: Vec<Resource> = (0..9).map(|_| uav(11, 1)).collect();
        let unbounded = vec![uav(12, u32::MAX)];
        for (uavs, v15, v16) in [
            (ranged, false, true),
            (nine, true, true),
            (unbounded, false, true),
        ] {
            let a = expected_features(&m, &meta((1, 5), uavs.clone()), ProgramKind::Compute);
            let b = expected_features(&m, &meta((1, 6), uavs), ProgramKind::Compute);
            assert_eq!((bit(&a, 3), bit(&b, 3)), (v15, v16));
        }
        let one = expected_features(&m, &meta((1, 6), vec![uav(11, 1)]), ProgramKind::Compute);
        assert!(!bit(&one, 3));
    }

    /// A module whose `main` calls `dx.op.<name>(op, args…)` for each call.
    fn calls(build: impl FnOnce(&mut Mb) -> Vec<(&'static str, DxOp, Vec<ValueId>)>) -> Module {
        let mut mb = Mb::new(DL);
        mb.block();
        let list = build(&mut mb);
        let f32t = mb.t(Type::Float);
        let i32t = mb.int(32);
        let ret = mb.named("dx.types.ResRet.f32", vec![f32t, f32t, f32t, f32t, i32t]);
        for (name, op, args) in list {
            mb.dx(name, op, &args, ret);
        }
        mb.ret();
        mb.finish().0
    }

    /// Sample's operands after the opcode: texture, sampler, four coordinates, three
    /// offsets, then the op's own (`tail`, the LOD clamp last).
    fn sample_args(mb: &mut Mb, offset: ValueId, tail: Vec<ValueId>) -> Vec<ValueId> {
        let h = mb.handle_ty();
        let hv = mb.undef(h);
        let f32t = mb.t(Type::Float);
        let c = mb.c(f32t, Constant::Float(0.5f32.to_bits().into()));
        let k = mb.ci(32, 0);
        let mut a = vec![hv, hv, c, c, c, c, offset, k, k];
        a.extend(tail);
        a
    }

    /// A value no constant: `threadId.x`, and a float made from it.
    fn runtime_values(mb: &mut Mb) -> (ValueId, ValueId) {
        let i32t = mb.int(32);
        let zero = mb.ci(32, 0);
        let t = mb.dx("threadId.i32", DxOp::ThreadId, &[zero], i32t);
        let f32t = mb.t(Type::Float);
        let f = mb.cast(crate::dxil::llvm::CastOp::UiToFp, t, f32t);
        (t, f)
    }

    /// SFI0 bit 8 (tiled resources), DXC `ShaderFlags::CollectShaderFlags`: from
    /// validator 1.8 a `Sample` whose LOD clamp (its last operand, `hasSampleClamp`) is
    /// not a zero constant or undef needs tiled resources; before 1.8 it does not (DXC
    /// test `has_lod_clamp.hlsl`: "LOD clamp requires TiledResources feature").
    #[test]
    fn lod_clamp_needs_tiled_resources_from_1_8() {
        for (clamp, want) in [
            ("runtime", true),
            ("one", true),
            ("zero", false),
            ("undef", false),
        ] {
            let m = calls(|mb| {
                let (_, rt) = runtime_values(mb);
                let f32t = mb.t(Type::Float);
                let c = match clamp {
                    "runtime" => rt,
                    "one" => mb.c(f32t, Constant::Float(1.0f32.to_bits().into())),
                    "zero" => mb.c(f32t, Constant::Float(0)),
                    _ => mb.undef(f32t),
                };
                let k = mb.ci(32, 0);
                vec![("sample.f32", DxOp::Sample, sample_args(mb, k, vec![c]))]
            });
            let new = expected_features(&m, &meta((1, 8), vec![]), ProgramKind::Pixel);
            let old = expected_features(&m, &meta((1, 7), vec![]), ProgramKind::Pixel);
            assert_eq!((bit(&new, 8), bit(&old, 8)), (want, false), "clamp {clamp}");
        }
    }

    /// SFI0 bit 29 (advanced texture operations), DXC `CollectShaderFlags`: a
    /// `TextureLoad` or a sample whose offsets are not constants
    /// (`hasNonConstantSampleOffsets`); constant offsets need nothing.
    #[test]
    fn non_constant_offsets_are_advanced_texture_ops() {
        for runtime in [false, true] {
            let m = calls(|mb| {
                let (t, _) = runtime_values(mb);
                let k = mb.ci(32, 0);
                let off = if runtime { t } else { k };
                let f32t = mb.t(Type::Float);
                let clamp = mb.undef(f32t);
                let h = mb.handle_ty();
                let hv = mb.undef(h);
                vec![
                    (
                        "sampleLevel.f32",
                        DxOp::SampleLevel,
                        sample_args(mb, off, vec![clamp]),
                    ),
                    (
                        "textureLoad.f32",
                        DxOp::TextureLoad,
                        vec![hv, k, k, k, k, off, k, k],
                    ),
                ]
            });
            let f = expected_features(&m, &meta((1, 7), vec![]), ProgramKind::Compute);
            assert_eq!(bit(&f, 29), runtime);
        }
    }

    /// SFI0 bit 31 (SampleCmp with gradient or bias), DXC `CollectShaderFlags`: the flag
    /// is *assigned* at each sample operation, so the last one of the function decides.
    #[test]
    fn sample_cmp_bias_flag_follows_the_last_sample() {
        for (first, last, want) in [
            (DxOp::SampleCmpBias, DxOp::Sample, false),
            (DxOp::Sample, DxOp::SampleCmpBias, true),
            (DxOp::SampleCmpGrad, DxOp::SampleCmpGrad, true),
        ] {
            let m = calls(|mb| {
                let f32t = mb.t(Type::Float);
                let u = mb.undef(f32t);
                let k = mb.ci(32, 0);
                let a = sample_args(mb, k, vec![u, u, u]);
                vec![
                    ("sampleCmpBias.f32", first, a.clone()),
                    ("sample.f32", last, a),
                ]
            });
            let f = expected_features(&m, &meta((1, 8), vec![]), ProgramKind::Pixel);
            assert_eq!(bit(&f, 31), want, "{first} then {last}");
        }
    }

    /// SFI0 bit 30 (writeable MSAA textures), DXC `CollectShaderFlags`: before validator
    /// 1.8 a declared RWTexture2DMS[Array] is enough; from 1.8 a handle must be made to
    /// one (`checkUsedHandle`).
    #[test]
    fn writeable_msaa_is_usage_based_from_1_8() {
        let unused = empty_module();
        let used = {
            let mut mb = Mb::new(DL);
            mb.block();
            mb.handle(1, 0, 0);
            mb.ret();
            mb.finish().0
        };
        for (m, v17, v18) in [(&unused, true, false), (&used, true, true)] {
            let a = expected_features(m, &meta((1, 7), vec![uav(3, 1)]), ProgramKind::Compute);
            let b = expected_features(m, &meta((1, 8), vec![uav(3, 1)]), ProgramKind::Compute);
            assert_eq!((bit(&a, 30), bit(&b, 30)), (v17, v18));
        }
    }

    /// A mismatch names the rule and the validator version it was derived for.
    #[test]
    fn rules_name_the_validator_version() {
        let m = empty_module();
        let f = expected_features(&m, &meta((1, 8), vec![uav(11, 1)]), ProgramKind::Mesh);
        let e = f.iter().find(|f| f.bit == 2).unwrap();
        assert!(
            e.rule.contains("validator 1.8") && e.rule.contains("CollectShaderFlagsForModule"),
            "{}",
            e.rule
        );
    }

    /// DXC `DxilPSVWriter`: an element's table offset holds its first `rows` indices (a
    /// longer list, as mesh outputs have, is appended whole, and a later element may
    /// share a prefix of it).
    #[test]
    fn semantic_indices_past_the_rows_are_not_compared() {
        assert_eq!(psv_semantic_indices(&[0, 1, 2, 3], 1), &[0]);
        assert_eq!(psv_semantic_indices(&[0, 1, 2, 3], 4), &[0, 1, 2, 3]);
        assert_eq!(psv_semantic_indices(&[5], 2), &[5]);
    }
}
