//! `dxlane info FILE [--json]`: what a container holds — parts, digest, program
//! version, signatures, resource definitions, feature flags, statistics, PSV0, RDAT and
//! HASH. `dxlane info --check FILE`: PSV0 and SFI0 checked against the DXIL module
//! (see [`crate::dxil::check`]).
//!
//! Owns: the text layout (aligned tables in the manner of fxc's listing header) and the
//! JSON wrapper. Does not own any decoding: that is [`crate::container`]. A part that
//! fails to decode prints its error in its section; the command fails only when the file
//! cannot be read or its header or part directory is broken.

// Printing only: counts and widths come from decoded values, not raw bytes.
#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use crate::container::codes::mask_letters;
use crate::container::digest::hex_digest;
use crate::container::psv0::{Psv0, PsvElement, StageInfo};
use crate::container::rdat::Rdat;
use crate::container::rdef::{
    Binding, ConstantBuffer, InputType, Rdef, RdefType, VariableClass, type_spelling,
};
use crate::container::sfi0::{FeatureFlags, feature_description};
use crate::container::signature::Signature;
use crate::container::stat::Statistics;
use crate::container::{ContainerInfo, DigestCheck, PartContents, PartInfo, ProgramHeader};
use crate::dxil::check::Checked;

/// Reads a container file through the read gate (`job::paths`): a regular file (never a
/// pipe or device, which could block or never end) of at most
/// `job::limits::MAX_PROGRAM_BYTES`. The error names the file once.
pub(crate) fn read_container(file: &Path) -> Result<Vec<u8>, String> {
    crate::job::paths::read_input(
        file,
        crate::job::limits::MAX_PROGRAM_BYTES,
        "the largest program dxlane reads",
    )
}

/// Prints what a container holds: text for a person, or (`json`) the whole
/// [`ContainerInfo`] as JSON. The file is named by its base name only.
pub fn run(file: &Path, json: bool) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let shown = file.display();
    let bytes = read_container(file)?;
    let info = ContainerInfo::parse(&bytes).map_err(|e| format!("{shown}: {e}"))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.to_string());
    if json {
        println!("{}", render_json(&name, &info)?);
    } else {
        print!("{}", render_text(&name, &info));
        print!("{}", render_entry_attributes(&bytes));
        print!("{}", render_subobjects(&bytes));
        print!("{}", render_debug_info(&bytes));
    }
    Ok(ExitCode::SUCCESS)
}

/// Which debug info the program carries, one line: DXIL debug metadata (in the `ILDB`
/// debug module dxc writes with `-Zi`, or in the `DXIL` part) with its sources, fxc's
/// `SPDB` part (a PDB: its files, lines and variables), a DXBC `SDBG` part (named as
/// not read: its layout is not public), or none. Debug info the debugger cannot read
/// is named with what is wrong: the debugger then steps the listing.
pub fn render_debug_info(bytes: &[u8]) -> String {
    use crate::container::{Container, DxilProgramHeader, FourCc};
    let Ok(c) = Container::parse(bytes) else {
        return String::new();
    };
    let mut found = Vec::new();
    for tag in [FourCc::ILDB, FourCc::DXIL] {
        let Some(part) = c.part(tag) else { continue };
        let m = DxilProgramHeader::parse(part)
            .map_err(|e| e.to_string())
            .and_then(|(_, bitcode)| {
                crate::dxil::llvm::Module::parse(bitcode).map_err(|e| e.to_string())
            });
        match m {
            Ok(m) => found.extend(describe_dxil_debug_info(&m, tag)),
            // The debug module only: the program part's own errors are reported above.
            Err(e) if tag == FourCc::ILDB => found.push(format!(
                "an ILDB part that does not decode ({}): the debugger steps the listing",
                clean(&e)
            )),
            Err(_) => {}
        }
    }
    if let Some(p) = c.part(crate::container::srci::SRCI) {
        found.push(match crate::container::srci::read(p.data) {
            Ok(s) => format!(
                "the HLSL in an SRCI part ({} source files{}{}, {} arguments)",
                s.files.len(),
                s.files
                    .first()
                    .map(|f| format!(", main file {}", clean(&f.name)))
                    .unwrap_or_default(),
                if s.compressed { ", zlib" } else { "" },
                s.args.len()
            ),
            Err(e) => format!(
                "an SRCI part that does not read ({}): no HLSL text is shown",
                clean(&e.to_string())
            ),
        });
    }
    if let Some(p) = c.part(FourCc(*b"ILDN")) {
        let name = crate::dxil::listing::header::debug_name(p.data);
        let name = name.as_deref().map_or("unreadable".into(), clean);
        if c.part(FourCc::ILDB).is_none() && found.is_empty() {
            // dxc -Zi -Fd: the debug module went to that PDB file.
            found.push(format!(
                "debug name {name} only (the debug module is in that PDB file, not in the container: the debugger steps the listing)"
            ));
        } else {
            found.push(format!("debug name {name}"));
        }
    }
    if c.part(FourCc(*b"SDBG")).is_some() {
        found.push(
            "a DXBC SDBG part (not read, its layout is not public: the debugger steps the listing)"
                .into(),
        );
    }
    if let Some(p) = c.part(crate::container::spdb::SPDB) {
        found.push(match crate::container::spdb::read(p.data) {
            Ok(s) => format!(
                "SPDB: {} files, {} lines, {} variables",
                s.files.len(),
                s.lines.len(),
                s.variables.len()
            ),
            Err(e) => format!(
                "an SPDB part that does not read ({}): the debugger steps the listing",
                clean(&e.to_string())
            ),
        });
    }
    if found.is_empty() {
        found.push("none".into());
    }
    format!("\nDebug info: {}\n", found.join("; "))
}

/// The debug metadata of a DXIL module (read from part `tag`), or `None` without any.
fn describe_dxil_debug_info(
    m: &crate::dxil::llvm::Module,
    tag: crate::container::FourCc,
) -> Option<String> {
    use crate::dxil::debuginfo::{self, DebugInfo, DebugInfoKind};
    if debuginfo::kind(m) == DebugInfoKind::None {
        return None;
    }
    Some(match DebugInfo::read(m) {
        Ok(Some(d)) => {
            let main = d
                .main_file
                .as_deref()
                .map(|f| format!(", main file {}", clean(f)))
                .unwrap_or_default();
            format!(
                "DXIL debug metadata in {tag} ({} source files{main}, {} located instructions, {} variables)",
                d.sources.len(),
                d.frames.len(),
                d.variables.len()
            )
        }
        Ok(None) => format!("DXIL debug metadata in {tag}"),
        Err(e) => format!(
            "DXIL debug metadata in {tag}, malformed ({}): the debugger steps the listing",
            clean(&e)
        ),
    })
}

/// What a DXIL module's entry points state that no part restates in full: the SM 6.8
/// ranged `[WaveSize(min, max, preferred)]` (PSV0 keeps only min and max) or SM 6.6
/// `[WaveSize(n)]`. Empty for DXBC, for a module that does not decode, and for entry
/// points without such attributes.
pub fn render_entry_attributes(bytes: &[u8]) -> String {
    use crate::container::{Container, DxilProgramHeader, FourCc};
    let mut out = String::new();
    let Some(meta) = Container::parse(bytes).ok().and_then(|c| {
        let (_, bitcode) = DxilProgramHeader::parse(c.part(FourCc::DXIL)?).ok()?;
        let m = crate::dxil::llvm::Module::parse(bitcode).ok()?;
        crate::dxil::meta::DxilMetadata::read(&m).ok()
    }) else {
        return out;
    };
    for e in &meta.entry_points {
        if let Some(w) = e.wave_size() {
            if out.is_empty() {
                let _ = writeln!(out, "\nDXIL entry points:");
            }
            let _ = writeln!(out, "  {}: {w}", clean(&e.name));
        }
    }
    out
}

/// A library's state-object subobjects (its `RDAT` subobject table), one line each with
/// what it declares: the configurations, hit groups, root signatures (their parameters
/// by kind) and export associations a `[rays]` job takes from the library
/// (`docs/raytracing.md`). Empty without subobjects; a table that does not decode is
/// named with its error.
pub fn render_subobjects(bytes: &[u8]) -> String {
    use crate::container::rdat::{SubobjectDesc, subobjects};
    use crate::container::{Container, FourCc};
    let mut out = String::new();
    let Some(part) = Container::parse(bytes)
        .ok()
        .and_then(|c| c.part(FourCc::RDAT).copied())
    else {
        return out;
    };
    let list = match subobjects(&part) {
        Ok(l) if l.is_empty() => return out,
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(out, "\nSubobjects: cannot be read: {e}");
            return out;
        }
    };
    let _ = writeln!(out, "\nSubobjects ({}):", list.len());
    let root = |bytes: &[u8]| match crate::container::rts0::parse(bytes) {
        Ok(rs) if rs.parameters.is_empty() => "no parameters".to_string(),
        Ok(rs) => rs
            .parameters
            .iter()
            .map(|p| p.kind.name())
            .collect::<Vec<_>>()
            .join(", "),
        Err(e) => format!("cannot be read: {e}"),
    };
    for s in &list {
        let what = match &s.desc {
            SubobjectDesc::StateObjectConfig { flags } => format!("flags 0x{flags:x}"),
            SubobjectDesc::GlobalRootSignature { bytes }
            | SubobjectDesc::LocalRootSignature { bytes } => root(bytes),
            SubobjectDesc::Association { subobject, exports } => {
                if exports.is_empty() {
                    format!("{} to every export (default)", clean(subobject))
                } else {
                    format!(
                        "{} to {}",
                        clean(subobject),
                        exports
                            .iter()
                            .map(|e| clean(e))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            }
            SubobjectDesc::ShaderConfig {
                max_payload_size,
                max_attribute_size,
            } => format!("payload {max_payload_size} bytes, attributes {max_attribute_size} bytes"),
            SubobjectDesc::PipelineConfig {
                max_recursion_depth,
                flags,
            } => match flags {
                Some(f) => format!("max recursion depth {max_recursion_depth}, flags 0x{f:x}"),
                None => format!("max recursion depth {max_recursion_depth}"),
            },
            SubobjectDesc::HitGroup {
                kind,
                any_hit,
                closest_hit,
                intersection,
            } => {
                let mut parts = vec![match kind {
                    0 => "triangles".to_string(),
                    1 => "procedural primitive".to_string(),
                    k => format!("type {k}"),
                }];
                for (role, name) in [
                    ("closest hit", closest_hit),
                    ("any hit", any_hit),
                    ("intersection", intersection),
                ] {
                    if !name.is_empty() {
                        parts.push(format!("{role} {}", clean(name)));
                    }
                }
                parts.join(", ")
            }
            SubobjectDesc::Unknown(k) => format!("kind {k}"),
        };
        let _ = writeln!(out, "  {} ({}): {what}", clean(&s.name), s.desc.type_name());
    }
    out
}

/// `dxlane info --check FILE`: compares the container's PSV0 and SFI0 with what its
/// DXIL module states and uses ([`crate::dxil::check`]), prints every mismatch with
/// both values, and exits 0 when all hold, 1 otherwise. A DXBC container has nothing
/// to check: it says so and exits 0.
pub fn run_check(file: &Path) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let shown = file.display();
    let bytes = read_container(file)?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.to_string());
    let checked = crate::dxil::check::check(&bytes).map_err(|e| format!("{shown}: {e}"))?;
    print!("{}", render_check(&name, &checked));
    Ok(match checked {
        Checked::Dxil(r) if !r.passed() => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

/// The text of a check: one line of totals, then each mismatch and note.
pub fn render_check(name: &str, checked: &Checked) -> String {
    let mut out = String::new();
    match checked {
        Checked::NotDxil => {
            let _ = writeln!(
                out,
                "{name}: no PSV0 / not a DXIL program: nothing to check"
            );
        }
        Checked::Dxil(r) => {
            let verdict = if r.passed() { "all hold" } else { "MISMATCH" };
            let _ = writeln!(
                out,
                "{name}: PSV0 and SFI0 against the module: {} values compared, {} mismatches: {verdict}",
                r.compared,
                r.mismatches.len()
            );
            for m in &r.mismatches {
                let _ = writeln!(
                    out,
                    "  mismatch: {}: module {}, part {}",
                    clean(&m.field),
                    clean(&m.module),
                    clean(&m.part)
                );
                let _ = writeln!(out, "    rule: {}", clean(&m.rule));
            }
            for n in &r.notes {
                let _ = writeln!(out, "  note: {}", clean(n));
            }
        }
    }
    out
}

/// The JSON report: `{ "file": name, …ContainerInfo }`.
pub fn render_json(name: &str, info: &ContainerInfo) -> Result<String, serde_json::Error> {
    #[derive(serde::Serialize)]
    struct Report<'a> {
        file: &'a str,
        /// The highest shader model dxlane runs, and what of it is refused.
        dxlane_runs: crate::lower::dxil::Runs,
        #[serde(flatten)]
        info: &'a ContainerInfo,
    }
    serde_json::to_string_pretty(&Report {
        file: name,
        dxlane_runs: crate::lower::dxil::runs(),
        info,
    })
}

/// Text with control characters shown as `\xNN`, so that names cannot break the layout.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\x{:02x}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// An aligned table: a header row, a dashed rule, then the rows. `right[i]` aligns
/// column `i` to the right. Every line starts with `indent`.
fn table(out: &mut String, indent: &str, headers: &[&str], right: &[bool], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let mut s = String::from(indent);
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                s.push(' ');
            }
            if right.get(i).copied().unwrap_or(false) {
                let _ = write!(s, "{cell:>w$}");
            } else {
                let _ = write!(s, "{cell:<w$}");
            }
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(
        out,
        "{}",
        line(headers.iter().map(|h| h.to_string()).collect())
    );
    let _ = writeln!(
        out,
        "{}",
        line(widths.iter().map(|w| "-".repeat(*w)).collect())
    );
    for row in rows {
        let _ = writeln!(out, "{}", line(row.clone()));
    }
}

/// What a part is, in a few words.
fn part_title(p: &PartInfo) -> String {
    match &p.contents {
        Ok(PartContents::Program(_)) => "program".into(),
        Ok(PartContents::Signature(s)) => match s.kind {
            crate::container::signature::SignatureKind::Input => "input signature".into(),
            crate::container::signature::SignatureKind::Output => "output signature".into(),
            crate::container::signature::SignatureKind::PatchConstant => {
                "patch-constant signature".into()
            }
        },
        Ok(PartContents::Rdef(_)) => "resource definitions".into(),
        Ok(PartContents::FeatureFlags(_)) => "feature flags".into(),
        Ok(PartContents::Statistics(Statistics::Counters { .. })) => "statistics".into(),
        Ok(PartContents::Statistics(Statistics::DxilReflection { .. })) => {
            "reflection program".into()
        }
        Ok(PartContents::Psv0(_)) => "pipeline state validation".into(),
        Ok(PartContents::Rdat(_)) => "runtime data".into(),
        Ok(PartContents::Hash(_)) => "shader hash".into(),
        Ok(PartContents::SourceInfo { .. }) => "HLSL sources".into(),
        Ok(PartContents::ProgramDatabase { .. }) => "HLSL debug info (PDB)".into(),
        Ok(PartContents::Undecoded { note: Some(n) }) => format!("not decoded: {n}"),
        Ok(PartContents::Undecoded { note: None }) => "not decoded".into(),
        Err(_) => "error".into(),
    }
}

fn program_line(tag: &str, h: &ProgramHeader) -> String {
    match h {
        ProgramHeader::Tokens(t) => {
            format!("{} (part {tag}; {} tokens)", t.version, t.length_in_tokens)
        }
        ProgramHeader::Dxil(d) => {
            let (major, minor) = d.dxil_version_pair();
            format!(
                "{} (part {tag}; DXIL {major}.{minor}; bitcode {} bytes)",
                d.version, d.bitcode_size
            )
        }
    }
}

/// The whole text report.
pub fn render_text(name: &str, info: &ContainerInfo) -> String {
    let mut out = String::new();
    let (major, minor) = info.version;
    let _ = writeln!(
        out,
        "{name}: DXBC container {major}.{minor}, {} bytes, {} parts",
        info.total_size,
        info.parts.len()
    );
    let digest = match &info.digest {
        DigestCheck::Matches { digest } => format!("matches ({})", hex_digest(digest)),
        DigestCheck::Mismatch { stored, computed } => {
            format!(
                "MISMATCH: stored {}, computed {}",
                hex_digest(stored),
                hex_digest(computed)
            )
        }
        DigestCheck::Unsigned { computed } => {
            format!("unsigned (all zero; computed {})", hex_digest(computed))
        }
    };
    let _ = writeln!(out, "Digest:  {digest}");
    let program = match &info.program {
        None => "none".to_string(),
        Some(p) => match &p.header {
            Ok(h) => program_line(&p.tag.to_string(), h),
            Err(e) => format!("{}: error: {e}", p.tag),
        },
    };
    let _ = writeln!(out, "Program: {program}");
    let _ = writeln!(
        out,
        "Runs:    dxlane runs {}",
        crate::lower::dxil::runs_statement()
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "Parts:");
    let rows: Vec<Vec<String>> = info
        .parts
        .iter()
        .map(|p| {
            vec![
                p.index.to_string(),
                p.tag.to_string(),
                format!("0x{:x}", p.offset),
                p.size.to_string(),
                part_title(p),
            ]
        })
        .collect();
    table(
        &mut out,
        "  ",
        &["#", "Tag", "Offset", "Size", "Contents"],
        &[true, false, true, true, false],
        &rows,
    );
    for p in &info.parts {
        let _ = writeln!(out);
        part_section(&mut out, p);
    }
    out
}

fn part_section(out: &mut String, p: &PartInfo) {
    let tag = p.tag.to_string();
    match &p.contents {
        Err(e) => {
            let _ = writeln!(out, "{tag}: error: {e}");
        }
        Ok(PartContents::Program(h)) => {
            let _ = writeln!(out, "{tag}: program {}", program_line(&tag, h));
        }
        Ok(PartContents::Signature(s)) => signature_section(out, &tag, s),
        Ok(PartContents::Rdef(r)) => rdef_section(out, &tag, r),
        Ok(PartContents::FeatureFlags(f)) => features_section(out, &tag, f),
        Ok(PartContents::Statistics(s)) => stat_section(out, &tag, s),
        Ok(PartContents::Psv0(psv)) => psv_section(out, &tag, psv),
        Ok(PartContents::Rdat(r)) => rdat_section(out, &tag, r),
        Ok(PartContents::Hash(h)) => {
            let source = if h.includes_source {
                ", includes source"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{tag}: shader hash {} (flags 0x{:x}{source})",
                h.digest, h.flags
            );
        }
        Ok(PartContents::SourceInfo {
            files,
            arguments,
            compressed,
        }) => {
            let names: Vec<String> = files.iter().map(|f| clean(f)).collect();
            let zlib = if *compressed { ", zlib" } else { "" };
            let _ = writeln!(
                out,
                "{tag}: HLSL sources: {} file(s) ({}), {arguments} compiler arguments{zlib}, {} bytes",
                files.len(),
                names.join(", "),
                p.size
            );
        }
        Ok(PartContents::ProgramDatabase {
            files,
            lines,
            variables,
        }) => {
            let names: Vec<String> = files.iter().map(|f| clean(f)).collect();
            let _ = writeln!(
                out,
                "{tag}: HLSL debug info (PDB): {} file(s) ({}), {lines} lines, {variables} variables, {} bytes",
                files.len(),
                names.join(", "),
                p.size
            );
        }
        Ok(PartContents::Undecoded { note }) => {
            let what = note.map(|n| format!(" ({n})")).unwrap_or_default();
            let _ = writeln!(out, "{tag}: not decoded{what}, {} bytes", p.size);
        }
    }
}

fn signature_section(out: &mut String, tag: &str, s: &Signature) {
    use crate::container::signature::{MinPrecision, RwMaskMeaning, SignatureKind};
    let title = match s.kind {
        SignatureKind::Input => "input signature",
        SignatureKind::Output => "output signature",
        SignatureKind::PatchConstant => "patch-constant signature",
    };
    let used = match s.rw_mask_meaning {
        RwMaskMeaning::AlwaysRead => "Read",
        RwMaskMeaning::NeverWritten => "Written",
    };
    let n = s.elements.len();
    let _ = writeln!(
        out,
        "{tag}: {title} ({n} element{} of {} bytes)",
        if n == 1 { "" } else { "s" },
        s.element_size
    );
    if s.elements.is_empty() {
        let _ = writeln!(out, "  no elements");
        return;
    }
    let streams = s.element_size != 24;
    let precision = s
        .elements
        .iter()
        .any(|e| e.min_precision != MinPrecision::Default);
    let mut headers = vec![
        "Name", "Index", "Mask", "Register", "SysValue", "Format", used,
    ];
    let mut right = vec![false, true, false, true, true, true, false];
    if streams {
        headers.push("Stream");
        right.push(true);
    }
    if precision {
        headers.push("MinPrecision");
        right.push(false);
    }
    let rows: Vec<Vec<String>> = s
        .elements
        .iter()
        .map(|e| {
            let reg = if e.register == u32::MAX {
                "N/A".to_string()
            } else {
                e.register.to_string()
            };
            let mut row = vec![
                clean(&e.semantic_name),
                e.semantic_index.to_string(),
                mask_letters(e.mask),
                reg,
                e.system_value.listing_name(),
                e.component_type.to_string(),
                mask_letters(e.used_components(s.rw_mask_meaning)),
            ];
            if streams {
                row.push(e.stream.to_string());
            }
            if precision {
                row.push(e.min_precision.to_string());
            }
            row
        })
        .collect();
    table(out, "  ", &headers, &right, &rows);
}

fn rdef_section(out: &mut String, tag: &str, r: &Rdef) {
    let flags = if r.compile_flag_names.is_empty() {
        String::new()
    } else {
        format!(" ({})", r.compile_flag_names.join(" | "))
    };
    let _ = writeln!(
        out,
        "{tag}: resource definitions for {}_{}_{}",
        r.target_kind, r.major, r.minor
    );
    let _ = writeln!(out, "  Creator: {}", clean(&r.creator));
    let _ = writeln!(out, "  Compile flags: 0x{:x}{flags}", r.compile_flags);
    if let Some(h) = &r.rd11 {
        let s = &h.sizes;
        let _ = writeln!(
            out,
            "  RD11: magic 0x{:08x}, record sizes: cbuffer {}, binding {}, variable {}, type {}, member {}",
            h.magic, s.cbuffer, s.binding, s.variable, s.ty, s.member
        );
    }
    let _ = writeln!(out);
    if r.constant_buffers.is_empty() {
        let _ = writeln!(out, "  Buffer definitions: none");
    } else {
        let _ = writeln!(out, "  Buffer definitions:");
        for cb in &r.constant_buffers {
            let _ = writeln!(out);
            buffer_definition(out, cb);
        }
    }
    let _ = writeln!(out);
    if r.bindings.is_empty() {
        let _ = writeln!(out, "  Resource bindings: none");
        return;
    }
    let _ = writeln!(out, "  Resource bindings:");
    let sm51 = r.bindings.iter().any(|b| b.space.is_some());
    let mut headers = vec!["Name", "Type", "Format", "Dim"];
    let mut right = vec![false, true, true, true];
    if sm51 {
        headers.push("ID");
        right.push(true);
    }
    headers.extend(["HLSL Bind", "Count"]);
    right.extend([true, true]);
    let rows: Vec<Vec<String>> = r
        .bindings
        .iter()
        .map(|b| {
            let mut row = vec![
                clean(&b.name),
                b.input_type.listing_name(),
                binding_format(b),
                binding_dim(b),
            ];
            if sm51 {
                row.push(
                    b.id.map(|i| format!("{}{i}", b.input_type.register_prefix().to_uppercase()))
                        .unwrap_or_default(),
                );
            }
            let space = match b.space {
                Some(s) if s != 0 => format!(",space{s}"),
                _ => String::new(),
            };
            row.push(format!(
                "{}{}{space}",
                b.input_type.register_prefix(),
                b.bind_point
            ));
            row.push(if b.bind_count == 0 {
                "unbounded".into()
            } else {
                b.bind_count.to_string()
            });
            row
        })
        .collect();
    table(out, "  ", &headers, &right, &rows);
    let extra: Vec<String> = r
        .bindings
        .iter()
        .filter(|b| !b.flag_names.is_empty())
        .map(|b| format!("{}: {}", clean(&b.name), b.flag_names.join(", ")))
        .collect();
    if !extra.is_empty() {
        let _ = writeln!(out, "  Binding flags: {}", extra.join("; "));
    }
}

/// fxc's `Format` column: `float4` for textures, `struct` and `byte` for structured and
/// raw buffers, `NA` for the rest.
fn binding_format(b: &Binding) -> String {
    use InputType::*;
    match b.input_type {
        Texture | UavRwTyped | Tbuffer | UavFeedbackTexture => {
            let n = b.components();
            if n == 1 {
                b.return_type.to_string()
            } else {
                format!("{}{n}", b.return_type)
            }
        }
        Structured
        | UavRwStructured
        | UavAppendStructured
        | UavConsumeStructured
        | UavRwStructuredWithCounter => "struct".into(),
        ByteAddress | UavRwByteAddress => "byte".into(),
        _ => "NA".into(),
    }
}

fn binding_dim(b: &Binding) -> String {
    match b.input_type {
        InputType::Cbuffer | InputType::Sampler => "NA".into(),
        _ => b.dimension.listing_name(b.sample_count),
    }
}

fn buffer_definition(out: &mut String, cb: &ConstantBuffer) {
    use crate::container::rdef::CbufferType;
    let head = match cb.kind {
        CbufferType::Cbuffer => format!("cbuffer {}", clean(&cb.name)),
        CbufferType::Tbuffer => format!("tbuffer {}", clean(&cb.name)),
        CbufferType::InterfacePointers => format!("interfaces {}", clean(&cb.name)),
        CbufferType::ResourceBindInfo => format!("Resource bind info for {}", clean(&cb.name)),
        CbufferType::Unknown(n) => format!("buffer type {n} {}", clean(&cb.name)),
    };
    let _ = writeln!(
        out,
        "    {head} ({} bytes{})",
        cb.size,
        if cb.flags & 1 != 0 {
            ", user packed"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "    {{");
    for v in &cb.variables {
        let unused = if v.is_used() { "" } else { " [unused]" };
        let trailer = format!("// Offset: {:>5} Size: {:>5}{unused}", v.offset, v.size);
        declaration(out, 6, &v.ty, &v.name, &trailer);
        if let Some(d) = &v.default_value {
            let words: Vec<String> = d
                .chunks(4)
                .map(|c| {
                    c.iter()
                        .rev()
                        .map(|b| format!("{b:02x}"))
                        .collect::<String>()
                })
                .map(|w| format!("0x{w}"))
                .collect();
            let _ = writeln!(out, "{:6}  = {}", "", words.join(" "));
        }
    }
    let _ = writeln!(out, "    }}");
}

/// One declaration (`float4 tint;`), a struct expanded member by member, with
/// `trailer` (the offset comment) aligned at column 45.
fn declaration(out: &mut String, indent: usize, ty: &RdefType, name: &str, trailer: &str) {
    let array = if ty.elements > 0 && ty.class != VariableClass::Struct || ty.elements > 1 {
        format!("[{}]", ty.elements)
    } else {
        String::new()
    };
    let pad = |s: &str| {
        if s.chars().count() + indent < 44 {
            " ".repeat(44 - indent - s.chars().count())
        } else {
            " ".into()
        }
    };
    if ty.class == VariableClass::Struct {
        let _ = writeln!(out, "{:indent$}{}", "", clean(&type_spelling(ty)));
        let _ = writeln!(out, "{:indent$}{{", "");
        for m in &ty.members {
            declaration(
                out,
                indent + 4,
                &m.ty,
                &m.name,
                &format!("// Offset: {:>5}", m.offset),
            );
        }
        let closing = format!("}} {}{array};", clean(name));
        let _ = writeln!(out, "{:indent$}{closing}{}{trailer}", "", pad(&closing));
    } else {
        let decl = format!("{} {}{array};", clean(&type_spelling(ty)), clean(name));
        let _ = writeln!(out, "{:indent$}{decl}{}{trailer}", "", pad(&decl));
    }
}

fn features_section(out: &mut String, tag: &str, f: &FeatureFlags) {
    let _ = writeln!(out, "{tag}: feature flags 0x{:016x}", f.mask);
    if f.mask == 0 {
        let _ = writeln!(out, "  none");
        return;
    }
    let rows: Vec<Vec<String>> = (0..64u32)
        .filter(|b| (f.mask >> b) & 1 == 1)
        .map(|b| {
            let name = crate::container::sfi0::feature_name(b)
                .map(str::to_string)
                .unwrap_or_else(|| format!("bit {b}"));
            vec![
                b.to_string(),
                name,
                feature_description(b).unwrap_or("unnamed").to_string(),
            ]
        })
        .collect();
    table(
        out,
        "  ",
        &["Bit", "Name", "Requires"],
        &[true, false, false],
        &rows,
    );
}

fn stat_section(out: &mut String, tag: &str, s: &Statistics) {
    match s {
        Statistics::DxilReflection { header } => {
            let (major, minor) = header.dxil_version_pair();
            let _ = writeln!(
                out,
                "{tag}: reflection program {} (DXIL {major}.{minor}, bitcode {} bytes)",
                header.version, header.bitcode_size
            );
        }
        Statistics::Counters { words } => {
            let _ = writeln!(out, "{tag}: statistics ({} words)", words.len());
            let rows: Vec<Vec<String>> = words
                .iter()
                .map(|w| {
                    vec![
                        w.name
                            .map(str::to_string)
                            .unwrap_or_else(|| format!("word {}", w.index)),
                        w.value.to_string(),
                        w.meaning.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            table(
                out,
                "  ",
                &["Counter", "Value", "Meaning"],
                &[false, true, false],
                &rows,
            );
        }
    }
}

fn stage_line(s: &StageInfo) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    match s {
        StageInfo::Vertex {
            output_position_present,
        } => format!("vertex; output position: {}", yes(*output_position_present)),
        StageInfo::Hull {
            input_control_points,
            output_control_points,
            tessellator_domain,
            output_primitive,
        } => format!(
            "hull; control points: {input_control_points} in, {output_control_points} out; domain: {tessellator_domain}; output primitive: {output_primitive}"
        ),
        StageInfo::Domain {
            input_control_points,
            output_position_present,
            tessellator_domain,
        } => format!(
            "domain; input control points: {input_control_points}; output position: {}; domain: {tessellator_domain}",
            yes(*output_position_present)
        ),
        StageInfo::Geometry {
            input_primitive,
            output_topology,
            output_stream_mask,
            output_position_present,
        } => format!(
            "geometry; input: {input_primitive}; output: {output_topology}; streams: 0x{output_stream_mask:x}; output position: {}",
            yes(*output_position_present)
        ),
        StageInfo::Pixel {
            depth_output,
            sample_frequency,
        } => {
            format!(
                "pixel; depth output: {}; sample frequency: {}",
                yes(*depth_output),
                yes(*sample_frequency)
            )
        }
        StageInfo::Amplification { payload_size } => {
            format!("amplification; payload: {payload_size} bytes")
        }
        StageInfo::Mesh {
            group_shared_bytes_used,
            group_shared_bytes_dependent_on_view_id,
            payload_size,
            max_output_vertices,
            max_output_primitives,
        } => format!(
            "mesh; group shared: {group_shared_bytes_used} bytes ({group_shared_bytes_dependent_on_view_id} view-dependent); payload: {payload_size} bytes; max output: {max_output_vertices} vertices, {max_output_primitives} primitives"
        ),
        StageInfo::Other => "no stage-specific fields".into(),
    }
}

fn psv_section(out: &mut String, tag: &str, p: &Psv0) {
    let ri = &p.runtime_info;
    let _ = writeln!(
        out,
        "{tag}: pipeline state validation (runtime info {} bytes)",
        ri.size
    );
    let words: Vec<String> = ri
        .stage_words
        .iter()
        .map(|w| format!("0x{w:08x}"))
        .collect();
    let _ = writeln!(out, "  Stage words: {}", words.join(" "));
    let _ = writeln!(out, "  Stage: {}", stage_line(&ri.stage_info));
    let _ = writeln!(
        out,
        "  Wave lanes: {}..{}",
        ri.min_wave_lanes, ri.max_wave_lanes
    );
    if let Some(v1) = &ri.v1 {
        let _ = writeln!(
            out,
            "  Shader stage: {}; uses view ID: {}",
            v1.shader_stage.name(),
            if v1.uses_view_id { "yes" } else { "no" }
        );
        let meaning = v1
            .stage_word_meaning()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        let _ = writeln!(out, "  Stage word: 0x{:04x}{meaning}", v1.stage_word);
        let _ = writeln!(
            out,
            "  Elements: {} input, {} output, {} patch constant; vectors: {} input, output {:?}, {} patch constant",
            v1.input_elements,
            v1.output_elements,
            v1.patch_constant_elements,
            v1.input_vectors,
            v1.output_vectors,
            v1.patch_constant_vectors()
        );
    }
    if let Some([x, y, z]) = ri.num_threads {
        let _ = writeln!(out, "  Thread group: {x} x {y} x {z}");
    }
    if let Some(name) = &ri.entry_name {
        let _ = writeln!(out, "  Entry: {}", clean(name));
    }
    if !ri.extra_words.is_empty() {
        let w: Vec<String> = ri
            .extra_words
            .iter()
            .map(|w| format!("0x{w:08x}"))
            .collect();
        let _ = writeln!(out, "  Further runtime-info words: {}", w.join(" "));
    }
    if p.resources.is_empty() {
        let _ = writeln!(out, "  Resources: none");
    } else {
        let _ = writeln!(
            out,
            "  Resources ({}-byte records):",
            p.resource_record_size.unwrap_or(0)
        );
        let rows: Vec<Vec<String>> = p
            .resources
            .iter()
            .map(|r| {
                vec![
                    r.resource_type.to_string(),
                    r.space.to_string(),
                    r.lower_bound.to_string(),
                    if r.upper_bound == u32::MAX {
                        "unbounded".into()
                    } else {
                        r.upper_bound.to_string()
                    },
                    r.kind.map(|k| k.to_string()).unwrap_or_else(|| "-".into()),
                    r.flags
                        .map(|f| format!("0x{f:x}"))
                        .unwrap_or_else(|| "-".into()),
                ]
            })
            .collect();
        table(
            out,
            "    ",
            &["Type", "Space", "Lower", "Upper", "Kind", "Flags"],
            &[false, true, true, true, false, true],
            &rows,
        );
    }
    if let Some(size) = p.string_table_size {
        let _ = writeln!(
            out,
            "  String table: {size} bytes; semantic-index table: {} entries",
            p.semantic_index_table.len()
        );
    }
    let all: Vec<(&str, &PsvElement)> = p
        .inputs
        .iter()
        .map(|e| ("input", e))
        .chain(p.outputs.iter().map(|e| ("output", e)))
        .chain(p.patch_constants.iter().map(|e| ("patch", e)))
        .collect();
    if !all.is_empty() {
        let _ = writeln!(
            out,
            "  Signature elements ({}-byte):",
            p.element_size.unwrap_or(0)
        );
        let rows: Vec<Vec<String>> = all
            .iter()
            .map(|(sig, e)| {
                let indices: Vec<String> = e.semantic_indices.iter().map(u32::to_string).collect();
                vec![
                    sig.to_string(),
                    if e.name.is_empty() {
                        "-".into()
                    } else {
                        clean(&e.name)
                    },
                    indices.join(","),
                    e.semantic_kind.to_string(),
                    e.rows.to_string(),
                    if e.allocated {
                        e.start_row.to_string()
                    } else {
                        "-".into()
                    },
                    e.columns.to_string(),
                    if e.allocated {
                        e.start_column.to_string()
                    } else {
                        "-".into()
                    },
                    e.component_type.to_string(),
                    e.interpolation_mode.to_string(),
                    format!("0x{:x}", e.dynamic_index_mask),
                    e.stream.to_string(),
                ]
            })
            .collect();
        table(
            out,
            "    ",
            &[
                "Sig",
                "Name",
                "Index",
                "Kind",
                "Rows",
                "Row",
                "Cols",
                "Col",
                "Type",
                "Interpolation",
                "DynMask",
                "Stream",
            ],
            &[
                false, false, false, false, true, true, true, true, false, false, true, true,
            ],
            &rows,
        );
    }
    for t in &p.dependency_tables {
        let _ = writeln!(
            out,
            "  {}: {} rows x {} words",
            t.name, t.rows, t.words_per_row
        );
        for (i, row) in t.words.chunks(t.words_per_row.max(1) as usize).enumerate() {
            let w: Vec<String> = row.iter().map(|w| format!("{w:08x}")).collect();
            let _ = writeln!(out, "    {i:>3}: {}", w.join(" "));
        }
    }
}

fn rdat_section(out: &mut String, tag: &str, r: &Rdat) {
    let _ = writeln!(
        out,
        "{tag}: runtime data (version 0x{:x}, {} parts)",
        r.version,
        r.parts.len()
    );
    let rows: Vec<Vec<String>> = r
        .parts
        .iter()
        .map(|p| {
            vec![
                p.part_type.to_string(),
                format!("0x{:x}", p.offset),
                p.size.to_string(),
                p.record_count.map(|n| n.to_string()).unwrap_or_default(),
                p.record_stride.map(|n| n.to_string()).unwrap_or_default(),
            ]
        })
        .collect();
    table(
        out,
        "  ",
        &["Part", "Offset", "Size", "Records", "Stride"],
        &[false, true, true, true, true],
        &rows,
    );
    let _ = writeln!(
        out,
        "  Strings: {}; index-array words: {}",
        r.strings.len(),
        r.index_array_words
    );
    if !r.resources.is_empty() {
        let _ = writeln!(out, "  Resources:");
        let rows: Vec<Vec<String>> = r
            .resources
            .iter()
            .enumerate()
            .map(|(i, res)| {
                vec![
                    i.to_string(),
                    clean(&res.name),
                    res.class.to_string(),
                    res.kind.to_string(),
                    res.id.to_string(),
                    res.space.to_string(),
                    res.lower_bound.to_string(),
                    if res.upper_bound == u32::MAX {
                        "unbounded".into()
                    } else {
                        res.upper_bound.to_string()
                    },
                    if res.flag_names.is_empty() {
                        "-".into()
                    } else {
                        res.flag_names.join(",")
                    },
                ]
            })
            .collect();
        table(
            out,
            "    ",
            &[
                "#", "Name", "Class", "Kind", "ID", "Space", "Lower", "Upper", "Flags",
            ],
            &[true, false, false, false, true, true, true, true, false],
            &rows,
        );
    }
    if !r.functions.is_empty() {
        let _ = writeln!(out, "  Functions:");
        for f in &r.functions {
            let _ = writeln!(out, "    {} ({})", clean(&f.unmangled_name), clean(&f.name));
            let _ = writeln!(
                out,
                "      kind: {}; stages: {}; minimum target: {}",
                f.shader_kind.name(),
                if f.shader_stages.is_empty() {
                    "none".into()
                } else {
                    f.shader_stages.join(", ")
                },
                f.min_shader_target_profile
            );
            let _ = writeln!(
                out,
                "      payload: {} bytes; attributes: {} bytes",
                f.payload_size, f.attribute_size
            );
            let features = if f.feature_names.is_empty() {
                "none".into()
            } else {
                f.feature_names.join(", ")
            };
            let _ = writeln!(out, "      features: 0x{:x} ({features})", f.feature_flags);
            let res: Vec<String> = f
                .resources
                .iter()
                .map(|&i| {
                    r.resource_name(i)
                        .map(clean)
                        .unwrap_or_else(|| format!("#{i} (missing)"))
                })
                .collect();
            let _ = writeln!(
                out,
                "      resources: {}",
                if res.is_empty() {
                    "none".into()
                } else {
                    res.join(", ")
                }
            );
            let deps: Vec<String> = f.function_dependencies.iter().map(|d| clean(d)).collect();
            let _ = writeln!(
                out,
                "      calls: {}",
                if deps.is_empty() {
                    "none".into()
                } else {
                    deps.join(", ")
                }
            );
            if !f.extra_words.is_empty() {
                let w: Vec<String> = f.extra_words.iter().map(|w| format!("0x{w:08x}")).collect();
                let _ = writeln!(out, "      further words: {}", w.join(" "));
            }
        }
    }
}

#[cfg(test)]
mod debug_info_tests {
    use super::*;
    use crate::container::FourCc;
    use crate::dxil::debuginfo::tests::module;

    /// `dxlane info` names the debug info a module carries, and says when it is
    /// malformed rather than failing.
    #[test]
    fn debug_info_is_described() {
        let (m, _) = module(false);
        assert_eq!(
            describe_dxil_debug_info(&m, FourCc::ILDB).as_deref(),
            Some(
                "DXIL debug metadata in ILDB (1 source files, main file shader.hlsl, 12 located instructions, 4 variables)"
            )
        );
        let (bad, _) = module(true);
        let t = describe_dxil_debug_info(&bad, FourCc::ILDB).unwrap();
        assert!(
            t.contains("malformed") && t.contains("steps the listing"),
            "{t}"
        );
        assert_eq!(render_debug_info(b"not a container"), "");
    }

    /// An `SPDB` part that reads is counted: its files, line-table entries and variables
    /// (the container `src/debug/hlsl/tests/spdb.rs` writes: one file, five lines, five
    /// variables).
    #[test]
    fn a_readable_spdb_part_is_counted() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/jobs/spdb/spdb.cs_5_0.dxbc"
        );
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(
            render_debug_info(&bytes),
            "\nDebug info: SPDB: 1 files, 5 lines, 5 variables\n"
        );
    }

    /// A container's `SDBG` part is named and said not to be read; an `SPDB` part that is
    /// not a PDB is named with why it does not read: the debugger steps such a program by
    /// its listing.
    #[test]
    fn sdbg_and_unreadable_spdb_parts_are_named_as_not_read() {
        // DXBC container layout: magic, digest, version, size, part count, offsets;
        // each part a FourCC, a size and its bytes.
        let mut b = b"DXBC".to_vec();
        b.extend([0u8; 16]);
        b.extend(1u16.to_le_bytes());
        b.extend(0u16.to_le_bytes());
        let total: u32 = 32 + 8 + 2 * 12;
        b.extend(total.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend(40u32.to_le_bytes());
        b.extend(52u32.to_le_bytes());
        for tag in [b"SDBG", b"SPDB"] {
            b.extend(tag);
            b.extend(4u32.to_le_bytes());
            b.extend([0u8; 4]);
        }
        let t = render_debug_info(&b);
        assert!(
            t.starts_with(
                "\nDebug info: a DXBC SDBG part (not read, its layout is not public: the debugger steps the listing); an SPDB part that does not read (the SPDB part's MSF superblock does not read: "
            ),
            "{t}"
        );
        assert!(t.ends_with("): the debugger steps the listing\n"), "{t}");
    }
}
