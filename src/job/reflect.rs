//! The reflection check: the ranges a program declares against the registers a job
//! binds, before anything runs.
//!
//! Owns: matching every declared range (`ir::Shader::resources`) with the `[[resource]]`
//! entries in its registers, building `pipeline::Bindings` from them, and saying what
//! does not fit. Does not own: the entries themselves ([`super::bind`]).
//!
//! # Rules
//!
//! Errors (the run does not start; the message lists every declared range and every
//! binding):
//! - a register of a declared single resource that the job does not bind, or an SM 5.1
//!   array of which the job binds no element. An array bound in part is allowed (D3D12
//!   resource binding tier 3: descriptors no lane accesses may stay unwritten) with a
//!   warning listing the unbound elements; an unbounded array reaches up to the highest
//!   register the job binds; a lane that accesses an unbound element stops the run with
//!   an error naming the lane, the instruction and the element;
//! - a binding of another kind than declared (`structured_buffer` for `raw_buffer`,
//!   `texture2d` for `texture2darray`, …);
//! - a structured buffer whose stride is not the declared one;
//! - a typed view (typed buffer or texture) whose format's values do not fit the
//!   declared return type: `float`, `unorm` and `snorm` declarations read float, UNORM,
//!   SNORM and sRGB formats; `uint` (and `double`, read as two `uint`s) reads UINT
//!   formats; `sint` reads SINT formats; `mixed` reads any — except that a format of
//!   32-bit float, uint or sint channels is taken for a `float`, `uint` or `sint`
//!   declaration of another of the three, with a warning, its bits read and written as
//!   they are (as D3D12 does);
//! - a UAV whose counter the program uses, bound without `counter`;
//! - an acceleration structure bound to anything but an `acceleration_structure` entry
//!   (and such an entry at a range of another kind).
//!
//! Warnings (printed, the run goes on): a binding the program does not declare; a
//! counter the program does not use; a constant buffer smaller than declared (reads past
//! its end give 0); a comparison sampler declared but a non-comparison filter bound, or
//! the reverse; heap entries for a program that does not index the heap.

use std::fmt::Write as _;

use super::JobError;
use super::bind::{BoundEntry, BoundJob, EntryKind, Register};
use crate::ir::{ComponentType, ResourceKind, ResourceRange, Shader};
use crate::pipeline::Bindings;
use crate::resources::format::ChannelType;
use crate::resources::{FeedbackKind, Format};

/// The most elements of one declared array a job binds (2^20): the job marks every
/// element bound or unbound, so a program's count (up to 2^32 − 1 in its text) is
/// checked first.
pub const MAX_BOUND_ELEMENTS: u32 = 1 << 20;

/// The bindings a program gets from a job, and what the check warned about.
#[derive(Debug, Clone)]
pub struct Fit {
    /// One descriptor list per declared range, then the heaps.
    pub bindings: Bindings,
    /// Warnings, one line each, naming the entry.
    pub warnings: Vec<String>,
}

/// Matches `shader`'s declared ranges with `job`'s bindings (see the module doc).
pub fn check(shader: &Shader, job: &BoundJob) -> Result<Fit, JobError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut used = vec![false; job.resources.len()];
    let mut ranges = Vec::with_capacity(shader.resources.len());
    for r in &shader.resources {
        let mut descs = Vec::new();
        let count = if r.count == ResourceRange::UNBOUNDED {
            let highest = job
                .resources
                .iter()
                .filter(|e| e.visibility.sees(shader.stage))
                .filter_map(|e| e.reg)
                .filter(|g| g.class == r.class && g.space == r.space && g.index >= r.lower)
                .map(|g| g.index - r.lower + 1)
                .max();
            match highest {
                Some(n) => n,
                None => {
                    problems.push(format!(
                        "{}: the program declares an unbounded array of {}{}; the job binds none of it",
                        r.binding_name(),
                        declared(r),
                        quoted_name(r)
                    ));
                    ranges.push(descs);
                    continue;
                }
            }
        } else if r.count > MAX_BOUND_ELEMENTS {
            // Each element is bound or marked unbound one by one; the count is the
            // program's, so it is checked before that loop.
            problems.push(format!(
                "{}: the program declares an array of {} elements of {}{}; a job binds arrays of at most {MAX_BOUND_ELEMENTS} (the largest shader-visible descriptor heap D3D12 guarantees holds 1,000,000)",
                r.binding_name(),
                r.count,
                declared(r),
                quoted_name(r)
            ));
            ranges.push(descs);
            continue;
        } else {
            r.count
        };
        // An array (SM 5.1) may be bound in part: resource binding tier 3 lets
        // descriptors no lane accesses stay unwritten; accessing one stops the run.
        let array = r.count != 1;
        let mut unbound: Vec<Register> = Vec::new();
        for k in 0..count {
            let reg = Register {
                class: r.class,
                index: r.lower.saturating_add(k),
                space: r.space,
            };
            // Only the entries this program sees (a root parameter's ShaderVisibility):
            // others at the same register belong to other stages.
            let Some(pos) = job
                .resources
                .iter()
                .position(|e| e.reg == Some(reg) && e.visibility.sees(shader.stage))
            else {
                if array {
                    unbound.push(reg);
                    descs.push(crate::resources::Descriptor::Unbound(view_class(r)));
                    continue;
                }
                problems.push(format!(
                    "{reg}: the program declares {}{} here; the job binds nothing",
                    article(&declared(r)),
                    quoted_name(r)
                ));
                continue;
            };
            used[pos] = true;
            let e = &job.resources[pos];
            if let Err(p) = fits(r, e, reg, &mut warnings) {
                problems.push(format!("{}: {p}", e.name));
            }
            descs.push(e.descriptor.clone());
        }
        if array && !unbound.is_empty() {
            if unbound.len() as u64 == u64::from(count) {
                problems.push(format!(
                    "{}: the program declares an array of {}{}; the job binds none of it",
                    r.binding_name(),
                    declared(r),
                    quoted_name(r)
                ));
            } else {
                warnings.push(format!(
                    "{}: the program declares {} elements of {}{}; the job leaves {} unbound: {} (a lane that accesses one stops the run)",
                    r.binding_name(),
                    if r.count == ResourceRange::UNBOUNDED {
                        "an unbounded array".to_string()
                    } else {
                        r.count.to_string()
                    },
                    declared(r),
                    quoted_name(r),
                    unbound.len(),
                    register_list(&unbound)
                ));
            }
        }
        ranges.push(descs);
    }
    for (e, used) in job.resources.iter().zip(&used) {
        if !used {
            // A resource without a register (one only a heap, table or record names) is
            // not "declared no <empty>": say it binds no register.
            warnings.push(match &e.reg {
                Some(reg) => format!(
                    "{}: the program declares no {reg}; this binding is not used",
                    e.name
                ),
                None => format!(
                    "{}: binds no register and nothing else names it; this binding is not used",
                    e.name
                ),
            });
        }
    }
    if !job.heap.is_empty() && !shader.uses_resource_heap {
        warnings.push(
            "[[heap]]: the program does not index ResourceDescriptorHeap; these entries are not used"
                .into(),
        );
    }
    if !job.sampler_heap.is_empty() && !shader.uses_sampler_heap {
        warnings.push(
            "[[sampler_heap]]: the program does not index SamplerDescriptorHeap; these entries are not used"
                .into(),
        );
    }
    if !problems.is_empty() {
        let mut message = String::from("the job's bindings do not fit what the program declares:");
        for p in &problems {
            message.push_str("\n  ");
            message.push_str(p);
        }
        return Err(JobError::Reflection {
            message,
            listing: listing(shader, job),
        });
    }
    Ok(Fit {
        bindings: Bindings {
            ranges,
            resource_heap: job.heap.iter().map(|e| e.descriptor.clone()).collect(),
            sampler_heap: job
                .sampler_heap
                .iter()
                .map(|e| e.descriptor.clone())
                .collect(),
        },
        warnings,
    })
}

/// The descriptor class a declared range holds (for its unbound elements).
fn view_class(r: &ResourceRange) -> crate::resources::ViewClass {
    use crate::resources::ViewClass;
    match r.kind {
        ResourceKind::ConstantBuffer { .. } => ViewClass::ConstantBuffer,
        ResourceKind::Sampler { .. } => ViewClass::Sampler,
        ResourceKind::AccelerationStructure => ViewClass::AccelerationStructure,
        ResourceKind::FeedbackTexture2D { .. } | ResourceKind::FeedbackTexture2DArray { .. } => {
            ViewClass::Feedback
        }
        k if k.is_texture() => ViewClass::Texture,
        _ => ViewClass::Buffer,
    }
}

/// Registers as a short list: consecutive ones as `t3..t5`.
fn register_list(regs: &[Register]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < regs.len() {
        let mut j = i;
        while j + 1 < regs.len() && regs[j + 1].index == regs[j].index + 1 {
            j += 1;
        }
        let name = |r: &Register| format!("{}{}", r.class.letter(), r.index);
        parts.push(if j == i {
            name(&regs[i])
        } else {
            format!("{}..{}", name(&regs[i]), name(&regs[j]))
        });
        i = j + 1;
    }
    let space = regs.first().map_or(0, |r| r.space);
    let list = parts.join(", ");
    if space == 0 {
        list
    } else {
        format!("{list} (space {space})")
    }
}

/// `"a "` or `"an "` before a word.
fn article(word: &str) -> String {
    let an = word
        .chars()
        .next()
        .is_some_and(|c| "aeiou".contains(c.to_ascii_lowercase()));
    format!("{} {word}", if an { "an" } else { "a" })
}

/// ` "name"` when the range has a name.
fn quoted_name(r: &ResourceRange) -> String {
    if r.name.is_empty() {
        String::new()
    } else {
        format!(" \"{}\"", r.name)
    }
}

/// A declared range's kind with its stride or return type: `structured_buffer (stride
/// 4)`, `texture2d of float`.
fn declared(r: &ResourceRange) -> String {
    match r.kind {
        ResourceKind::StructuredBuffer { stride } => format!("structured_buffer (stride {stride})"),
        ResourceKind::TypedBuffer => format!("typed_buffer of {}", r.component),
        k if k.is_texture() => format!("{} of {}", k.job_name(), r.component),
        ResourceKind::Sampler { comparison: true } => "comparison sampler".into(),
        k @ (ResourceKind::FeedbackTexture2D { .. }
        | ResourceKind::FeedbackTexture2DArray { .. }) => k.to_string(),
        k => k.job_name().into(),
    }
}

/// Whether a format's values fit a declared return type (module doc).
pub fn component_fits(c: ComponentType, f: Format) -> bool {
    let t = f.channel_type();
    match c {
        ComponentType::Float | ComponentType::UNorm | ComponentType::SNorm => matches!(
            t,
            ChannelType::Float | ChannelType::UNorm | ChannelType::SNorm | ChannelType::Srgb
        ),
        ComponentType::UInt | ComponentType::Double => t == ChannelType::UInt,
        ComponentType::SInt => t == ChannelType::SInt,
        ComponentType::Mixed => true,
    }
}

/// Whether a view of `f` declared with return type `c` that does not fit it is still
/// taken: every channel of `f` is a 32-bit float, uint or sint and `c` is one of those
/// three. A typed load then decodes the channel to its 32 bits and the program reads
/// them as its type; a store encodes the program's 32 bits unchanged — what D3D12 does
/// on WARP (vkd3d's `tgsm` test reads an R32_SINT view as `RWBuffer<uint>` and finds
/// the stored values), where the debug layer only warns. A UNORM, SNORM, sRGB or
/// narrower channel converts values, so a mismatch there is refused.
fn bits_as_they_are(c: ComponentType, f: Format) -> bool {
    let wide = !f.channels().is_empty()
        && f.channels().iter().all(|ch| ch.bits == 32)
        && matches!(
            f.channel_type(),
            ChannelType::Float | ChannelType::UInt | ChannelType::SInt
        );
    wide && matches!(
        c,
        ComponentType::Float | ComponentType::UInt | ComponentType::SInt
    )
}

fn channel_word(t: ChannelType) -> &'static str {
    match t {
        ChannelType::Float => "float",
        ChannelType::UNorm => "unorm",
        ChannelType::SNorm => "snorm",
        ChannelType::Srgb => "srgb (unorm)",
        ChannelType::UInt => "uint",
        ChannelType::SInt => "sint",
        ChannelType::Typeless => "typeless",
    }
}

/// Whether entry `e` fits declared range `r` at `reg`; the problem when not. Adds
/// warnings for what fits but looks wrong.
fn fits(
    r: &ResourceRange,
    e: &BoundEntry,
    reg: Register,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    let same_kind = match (r.kind, e.kind) {
        (ResourceKind::RawBuffer, EntryKind::RawBuffer)
        | (ResourceKind::StructuredBuffer { .. }, EntryKind::StructuredBuffer { .. })
        | (ResourceKind::TypedBuffer, EntryKind::TypedBuffer { .. })
        | (ResourceKind::ConstantBuffer { .. }, EntryKind::ConstantBuffer)
        | (ResourceKind::Sampler { .. }, EntryKind::Sampler { .. })
        | (ResourceKind::AccelerationStructure, EntryKind::AccelerationStructure) => true,
        (k, EntryKind::Texture { dim, .. }) => k.is_texture() && k.job_name() == dim.name(),
        (k, EntryKind::Feedback { kind, .. }) if k.job_name() == e.kind.name() => {
            let wanted = if k.feedback() == Some(true) {
                FeedbackKind::MipRegionUsed
            } else {
                FeedbackKind::MinMip
            };
            if wanted != kind && !e.null {
                return Err(format!(
                    "the program declares {} at {reg}; the job binds a {} map (`feedback`)",
                    article(&declared(r)),
                    kind.name()
                ));
            }
            true
        }
        _ => false,
    };
    if !same_kind {
        return Err(format!(
            "the program declares {} at {reg}; the job binds {}",
            article(&declared(r)),
            article(e.kind.name())
        ));
    }
    if e.null {
        return Ok(());
    }
    match (r.kind, e.kind) {
        (ResourceKind::StructuredBuffer { stride }, EntryKind::StructuredBuffer { stride: s })
            if stride != 0 && stride != s =>
        {
            return Err(format!(
                "the program declares a structured_buffer of stride {stride} at {reg}; the job's `stride` is {s}"
            ));
        }
        (_, EntryKind::TypedBuffer { format } | EntryKind::Texture { format, .. })
            if !component_fits(r.component, format) =>
        {
            if bits_as_they_are(r.component, format) {
                warnings.push(format!(
                    "{}: the program reads {reg} as {}; format {format} holds {} values, whose 32 bits it reads and writes as they are",
                    e.name,
                    r.component,
                    channel_word(format.channel_type())
                ));
            } else {
                return Err(format!(
                    "the program reads {reg} as {}; format {format} holds {} values",
                    r.component,
                    channel_word(format.channel_type())
                ));
            }
        }
        (ResourceKind::ConstantBuffer { size }, EntryKind::ConstantBuffer) => {
            let have = e.storage_bytes();
            if u64::from(size) > have {
                warnings.push(format!(
                    "{}: {have} bytes, but the program declares a cbuffer of {size} bytes; reads past the end give 0",
                    e.name
                ));
            }
        }
        (ResourceKind::Sampler { comparison }, EntryKind::Sampler { comparison: c })
            if comparison != c =>
        {
            warnings.push(if comparison {
                format!(
                    "{}: the program declares a comparison sampler but the `filter` is not a COMPARISON_ filter",
                    e.name
                )
            } else {
                format!(
                    "{}: the `filter` is a COMPARISON_ filter but the program declares a plain sampler",
                    e.name
                )
            });
        }
        _ => {}
    }
    if r.counter && e.counter.is_none() {
        return Err(format!(
            "the program uses {reg}'s counter (append/consume or IncrementCounter); give the entry `counter = 0`"
        ));
    }
    if !r.counter && e.counter.is_some() {
        warnings.push(format!(
            "{}: the program does not use {reg}'s counter",
            e.name
        ));
    }
    Ok(())
}

/// The table of every declared range, then every binding of the job.
pub fn listing(shader: &Shader, job: &BoundJob) -> String {
    let mut rows: Vec<[String; 5]> = vec![[
        "register".into(),
        "space".into(),
        "kind".into(),
        "stride/type".into(),
        "name".into(),
    ]];
    for r in &shader.resources {
        let mut reg = r.binding_name();
        if let Some(i) = reg.find(", space") {
            reg.truncate(i);
        }
        let detail = match r.kind {
            ResourceKind::StructuredBuffer { stride } => format!("stride {stride}"),
            ResourceKind::ConstantBuffer { size } if size != 0 => format!("{size} bytes"),
            ResourceKind::Sampler { comparison: true } => "comparison".into(),
            k if k == ResourceKind::TypedBuffer || k.is_texture() => r.component.to_string(),
            _ => String::new(),
        };
        let mut name = r.name.clone();
        if r.counter {
            name.push_str(if name.is_empty() {
                "(counter)"
            } else {
                " (counter)"
            });
        }
        rows.push([
            reg,
            r.space.to_string(),
            r.kind.job_name().into(),
            detail,
            name,
        ]);
    }
    let mut out = String::from("the program declares:\n");
    if shader.resources.is_empty() {
        out.push_str("  (no resources)\n");
    } else {
        let widths: Vec<usize> = (0..5)
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        for row in &rows {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                let _ = write!(line, "  {cell:<w$}", w = widths[c]);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if shader.uses_resource_heap {
        out.push_str("  and indexes ResourceDescriptorHeap\n");
    }
    if shader.uses_sampler_heap {
        out.push_str("  and indexes SamplerDescriptorHeap\n");
    }
    out.push_str("the job binds:");
    if job.resources.is_empty() {
        out.push_str("\n  (no [[resource]] entries)");
    }
    for e in &job.resources {
        let _ = write!(out, "\n  {}: {}", e.name, e.kind.describe());
        if e.visibility != super::bind::Visibility::All {
            let _ = write!(out, ", seen by the {} program only", e.visibility.name());
        }
        if e.null {
            out.push_str(", null");
        }
        if e.counter.is_some() {
            out.push_str(", counter");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D3D's typed-view rule as the module doc states it.
    #[test]
    fn return_types_and_formats() {
        assert!(component_fits(ComponentType::Float, Format::R8G8B8A8_UNORM));
        assert!(component_fits(
            ComponentType::Float,
            Format::R8G8B8A8_UNORM_SRGB
        ));
        assert!(component_fits(ComponentType::UNorm, Format::R32_FLOAT));
        assert!(!component_fits(ComponentType::Float, Format::R32_UINT));
        assert!(component_fits(ComponentType::UInt, Format::R32_UINT));
        assert!(!component_fits(ComponentType::UInt, Format::R32_SINT));
        assert!(component_fits(ComponentType::SInt, Format::R16_SINT));
        assert!(component_fits(ComponentType::Double, Format::R32G32_UINT));
        assert!(component_fits(ComponentType::Mixed, Format::R32_FLOAT));
    }

    #[test]
    fn articles() {
        assert_eq!(article("raw_buffer"), "a raw_buffer");
        assert_eq!(article("unbounded"), "an unbounded");
    }
}
