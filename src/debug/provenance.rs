//! Output-to-lane provenance: which lane last wrote a texel or element of a job's
//! output, so that a session opens on it (`dxlane debug JOB --texel rt0 x,y`,
//! `--element u0[i]`).
//!
//! Owns: naming an output ([`OutputSelect`]: a render target `rtN`, the depth buffer
//! `depth`, a register `u0` (`u0:space1`), a heap slot `heap[3]`, or a `[[resource]]` by
//! its `name`), finding the bytes it names in the resource's memory, running the job once
//! with the shared write attribution (`job::writers`, over `exec::observe` and the
//! pipeline's observers), and turning the last writer into a lane selection through the
//! pipeline's own lookup (`Work::pixel_select`, then `Work::locate` when the session
//! opens). Does not own: the attribution (`job::writers`), placement (`pipeline::work`)
//! or the session.
//!
//! # What "last" means
//!
//! - A dispatch: the thread whose store, atomic or compare-exchange was the last to
//!   touch the element's bytes. The lookup and the session run on one worker thread, so
//!   the groups run one after the other in the dispatch's order and "last" is one answer
//!   whatever the machine (with several workers, groups that race for a word finish in
//!   any order). An element of several words is answered by the word written last.
//! - A draw's render target or depth-stencil buffer: the pixel lane whose output-merger
//!   write of that sample — after the depth-stencil test and the blend — came last. A
//!   sample is written in primitive order, so that is the last primitive that passed the
//!   tests there; an early depth-stencil write counts for the lane the pixel would run
//!   in. The lane is named as `--pixel x,y --prim k` names it: its primitive's rank
//!   among the primitives covering the sample.
//! - A draw's UAV: the last vertex or pixel lane that wrote the element's bytes (vertex
//!   waves all run before pixel waves; pixel waves in tile order, each tile's in
//!   primitive order: the order of a draw run with a write sink, on one worker thread).
//!   Pixels that write only UAVs count; helper lanes never write.
//!
//! - A ray dispatch's UAV: the ray (launch index) whose lanes wrote the element's bytes
//!   last — its ray-generation lane, or a program its `TraceRay` or `CallShader` ran
//!   (which the line names). The launch runs its waves one after the other in launch
//!   order, a lane's nested programs inside its instruction. The session opens on the
//!   ray's ray-generation lane (`--ray`), after the store or after the call that ran
//!   the writing program.
//!
//! Nothing wrote the element — a cleared target, a resource's initial contents — is an
//! answer of its own ([`ProvenanceError::Unwritten`]), naming what the value came from.

use super::{DebugError, DebugOptions, Debugger, LaneSelect, Target};
use crate::exec::{Binding, Invocation, WriterMap};
use crate::job::writers::{
    DrawLane, DrawWriters, PixelWriters, RayWriters, bindings_of, draw_bindings, lane_words,
    stage_program,
};
use crate::job::{BufferRead, Prepared, Register, ResourceAt, ResourceData};
use crate::pipeline::{Hooks, MergeTarget, PixelLane, Work};

/// An output element to find the writer of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputSelect {
    /// A texel of a texture, render target or depth buffer.
    Texel {
        /// The resource's name (`rt0`, `depth`, `u1`, a `[[resource]]` name).
        resource: String,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// Array slice.
        slice: u32,
        /// Mip level.
        mip: u32,
        /// Sample (multisampled targets).
        sample: u32,
    },
    /// Element `index` of a buffer (a structured or typed element, a raw buffer's
    /// 4-byte word) or a texture's texel in row order of mip 0, as the debugger's places
    /// (`u0[5]`) count them.
    Element {
        /// The resource's name.
        resource: String,
        /// The element.
        index: u64,
    },
}

impl OutputSelect {
    /// `--element`'s `NAME[i]`.
    pub fn element(text: &str) -> Result<OutputSelect, String> {
        let t = text.trim();
        let bad = || format!("--element: `{t}` is not NAME[i] (as `u0[5]`, `heap[2][7]`)");
        let open = t.rfind('[').ok_or_else(bad)?;
        let (name, rest) = t.split_at(open);
        let index = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|i| i.trim().parse::<u64>().ok())
            .ok_or_else(bad)?;
        if name.trim().is_empty() {
            return Err(bad());
        }
        Ok(OutputSelect::Element {
            resource: name.trim().to_string(),
            index,
        })
    }

    /// `--texel NAME x,y` with `--slice`, `--mip` and `--sample`.
    pub fn texel(
        name: &str,
        at: &str,
        slice: u32,
        mip: u32,
        sample: u32,
    ) -> Result<OutputSelect, String> {
        let v: Vec<&str> = at.split(',').map(str::trim).collect();
        let (Some(x), Some(y), 2) = (
            v.first().and_then(|a| a.parse::<u32>().ok()),
            v.get(1).and_then(|a| a.parse::<u32>().ok()),
            v.len(),
        ) else {
            return Err(format!("--texel: `{at}` is not x,y (two whole numbers)"));
        };
        Ok(OutputSelect::Texel {
            resource: name.trim().to_string(),
            x,
            y,
            slice,
            mip,
            sample,
        })
    }

    fn resource(&self) -> &str {
        match self {
            OutputSelect::Texel { resource, .. } | OutputSelect::Element { resource, .. } => {
                resource
            }
        }
    }
}

/// Why no lane can be opened for an output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProvenanceError {
    /// No lane wrote the element: the text names where its value came from.
    #[error("{0}")]
    Unwritten(String),
    /// The name, the coordinates or the job do not allow the question.
    #[error("{0}")]
    Refused(String),
}

impl From<DebugError> for ProvenanceError {
    fn from(e: DebugError) -> ProvenanceError {
        ProvenanceError::Refused(e.to_string())
    }
}

/// The lane that last wrote an output element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The resource.
    pub at: ResourceAt,
    /// The element in words: `u0[5]`, `rt0 (3, 4)`.
    pub what: String,
    /// The lane's selection (what `--thread`, `--pixel` or `--vertex` would give).
    pub lane: LaneSelect,
    /// The lane in words.
    pub writer: String,
    /// The `dxlane debug` flags that select the lane.
    pub flags: String,
    /// What wrote it: an instruction of the program, or the output merger.
    pub by: String,
    /// Writes the element's last-written word (or sample) had in the run.
    pub writes: u32,
    /// Whether other lanes wrote that word too.
    pub contested: bool,
    /// First byte of the element's last-written word (texel, for targets) in the
    /// resource's memory.
    pub addr: u64,
    /// Bytes of that word (texel).
    pub bytes: u64,
    /// The element's bytes after the run.
    pub value: Vec<u8>,
    /// Whether the output merger wrote it (a render target or depth texel).
    pub merged: bool,
    /// A ray dispatch's element written last by a program the ray's `TraceRay` or
    /// `CallShader` ran, not by its ray-generation lane: that program (its index in
    /// `RaysWork::programs`) and its name (`closest-hit "closest_hit"`).
    pub nested: Option<(usize, String)>,
    /// A view-instanced draw: the view whose pass wrote it last (the session opens the
    /// lane in that view's pass, `Target::with_view`).
    pub view: Option<u32>,
}

impl Provenance {
    /// The one line the session opens with.
    pub fn line(&self) -> String {
        let hex: Vec<String> = self.value.iter().map(|b| format!("{b:02x}")).collect();
        let mut s = format!(
            "{} (bytes {}) was last written by {} ({}): {}",
            self.what,
            hex.join(" "),
            self.writer,
            self.flags,
            self.by
        );
        if self.writes > 1 {
            s.push_str(&format!(
                "; {} writes in the run{}",
                self.writes,
                if self.contested {
                    ", from several lanes"
                } else {
                    ""
                }
            ));
        }
        s
    }
}

/// Where an element is: its resource's address, the memory, the element's first byte
/// and size, and for a target texel the merge key.
struct Place {
    at: ResourceAt,
    memory: crate::resources::Memory,
    addr: u64,
    bytes: u64,
    merge: Option<(MergeTarget, u32, u32, u32)>,
    what: String,
    origin: String,
}

/// The address of `name` in event `event` of a command list: the register the event's
/// command binds the named resource at (`bind = [{ reg, resource }]`), with its name.
fn list_at(p: &Prepared, n: &str, event: usize) -> Result<(ResourceAt, String), ProvenanceError> {
    let cmd = p.job.file.commands.get(event.saturating_sub(1));
    let named = |r: &str| {
        p.job
            .file
            .resources
            .iter()
            .any(|e| e.name.as_deref() == Some(r))
    };
    let binds = cmd.map(|c| c.bind.as_slice()).unwrap_or_default();
    // A register of the event's command, or a named resource.
    let by_reg = Register::parse(n, 0).and_then(|r| {
        binds.iter().find(|b| {
            Register::parse(&b.reg, b.space)
                == Some(Register {
                    space: b.space,
                    ..r
                })
                && b.space == 0
        })
    });
    let bind = by_reg.or_else(|| binds.iter().find(|b| b.resource.as_deref() == Some(n)));
    match bind {
        Some(b) => {
            let reg = Register::parse(&b.reg, b.space).ok_or_else(|| {
                ProvenanceError::Refused(format!("event {event} binds `{}`: not a register", b.reg))
            })?;
            let name = b.resource.clone().ok_or_else(|| {
                ProvenanceError::Refused(format!(
                    "event {event} binds constants at {reg}, not a resource"
                ))
            })?;
            Ok((ResourceAt::Register(reg), name))
        }
        None if named(n) => Err(ProvenanceError::Unwritten(format!(
            "`{n}` is bound at no register of event {event} ([[command]] #{event}): no lane of it wrote `{n}`"
        ))),
        None => Err(ProvenanceError::Refused(format!(
            "`{n}` names no render target, depth buffer, named resource or register the list's event {event} binds"
        ))),
    }
}

/// The address of `name` in the prepared job: `rt0`, `depth`, `heap[3]`, `u1`,
/// `u1:space2`, or a `[[resource]]` entry's `name`.
fn resource_at(p: &Prepared, name: &str) -> Result<ResourceAt, ProvenanceError> {
    let n = name.trim();
    if let Some(i) = n.strip_prefix("rt").and_then(|i| i.parse::<u32>().ok()) {
        return Ok(ResourceAt::RenderTarget(i));
    }
    if n == "depth" {
        return Ok(ResourceAt::DepthStencil);
    }
    if let Some(i) = n
        .strip_prefix("heap[")
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|i| i.parse::<u32>().ok())
    {
        return Ok(ResourceAt::Heap(i));
    }
    let (reg, space) = match n.split_once(':') {
        Some((r, s)) => (
            r,
            s.trim()
                .strip_prefix("space")
                .and_then(|v| v.parse::<u32>().ok()),
        ),
        None => (n, Some(0)),
    };
    if let (Some(space), Some(r)) = (space, Register::parse(reg, 0)) {
        return Ok(ResourceAt::Register(Register { space, ..r }));
    }
    if let Some(e) = p
        .job
        .file
        .resources
        .iter()
        .find(|e| e.name.as_deref() == Some(n))
        && let Some(r) = e.reg.as_deref().and_then(|r| Register::parse(r, 0))
    {
        return Ok(ResourceAt::Register(Register {
            space: e.space.unwrap_or(0),
            ..r
        }));
    }
    let known: Vec<String> = p.written().iter().map(|(a, _)| a.to_string()).collect();
    Err(ProvenanceError::Refused(format!(
        "`{n}` names no render target, depth buffer, register, heap slot or named resource of the job (it writes: {})",
        if known.is_empty() {
            "nothing".to_string()
        } else {
            known.join(", ")
        }
    )))
}

fn place(
    p: &Prepared,
    target: &Target,
    sel: &OutputSelect,
    event: Option<usize>,
) -> Result<Place, ProvenanceError> {
    let n = sel.resource().trim();
    let is_target = n == "depth"
        || n.strip_prefix("rt")
            .is_some_and(|i| i.parse::<u32>().is_ok());
    let (at, label, data) = match (event, matches!(p.work, Work::List(_))) {
        (Some(e), true) if !is_target => {
            if let Some(pl) = list_target(p, target, sel, e)? {
                return Ok(pl);
            }
            let (at, name) = list_at(p, n, e)?;
            let r = p.resource_named(&name).map_err(ProvenanceError::Refused)?;
            (at, name, r.data)
        }
        (_, true) => {
            // A list's draw: its own targets.
            let at = resource_at(p, n)?;
            let Work::Draw(d) = &*target.work else {
                return Err(ProvenanceError::Refused(format!(
                    "{at}: the event is not a draw"
                )));
            };
            let tex = match at {
                ResourceAt::RenderTarget(i) => d
                    .fixed
                    .render_targets()
                    .get(i as usize)
                    .and_then(Option::as_ref)
                    .map(|v| &v.texture),
                _ => d.fixed.depth_stencil_view().map(|v| &v.texture),
            }
            .ok_or_else(|| ProvenanceError::Refused(format!("{at}: the event's draw has none")))?;
            (at, at.to_string(), ResourceData::Texture(tex))
        }
        _ => {
            let at = resource_at(p, n)?;
            let r = p.resource(at).map_err(ProvenanceError::Refused)?;
            (at, at.to_string(), r.data)
        }
    };
    let refuse = |s: String| Err(ProvenanceError::Refused(s));
    let origin = match (at, event) {
        (_, Some(e)) => {
            format!("what it held before event {e} (the job's contents and the commands before it)")
        }
        (ResourceAt::RenderTarget(i), None) => format!(
            "the clear of [[draw.render_target]] #{} (or zeros without one)",
            i + 1
        ),
        (ResourceAt::DepthStencil, None) => "the clear of [draw.depth_stencil]".to_string(),
        _ => format!("the contents the job gives {at} before the run"),
    };
    match (sel, data) {
        (
            OutputSelect::Element { index, .. },
            ResourceData::Buffer {
                memory,
                read,
                view_offset,
            },
        ) => {
            let size: u64 = match read {
                BufferRead::Raw => 4,
                BufferRead::Structured { stride } => u64::from(stride.max(1)),
                BufferRead::Typed { format } => u64::from(format.bytes_per_texel().max(1)),
                BufferRead::Constant => {
                    return refuse(format!("{at} is a constant buffer: no program writes it"));
                }
            };
            let count = memory.len().saturating_sub(view_offset) / size;
            if *index >= count {
                return refuse(format!(
                    "{at}[{index}] is past the buffer: it has elements 0 to {} of {size} bytes",
                    count.saturating_sub(1)
                ));
            }
            Ok(Place {
                at,
                memory: memory.clone(),
                addr: view_offset + index * size,
                bytes: size,
                merge: None,
                what: format!("{label}[{index}]"),
                origin,
            })
        }
        (OutputSelect::Texel { .. }, ResourceData::Buffer { .. }) => refuse(format!(
            "{at} is a buffer: name an element with --element {at}[i]"
        )),
        (OutputSelect::Element { index, .. }, ResourceData::Texture(t)) => {
            if at.is_draw_output() {
                return refuse(format!(
                    "{at} is a render target: name a texel with --texel {at} x,y"
                ));
            }
            let d = t.desc();
            let (w, h) = (u64::from(d.width.max(1)), u64::from(d.height.max(1)));
            let layers = u64::from(d.depth_or_array_size.max(1));
            if *index >= w * h * layers {
                return refuse(format!(
                    "{at}[{index}] is past the texture: mip 0 has {} texels",
                    w * h * layers
                ));
            }
            let (x, y, l) = (index % w, (index / w) % h, index / (w * h));
            let addr = t
                .texel_addr(0, l as u32, [x as u32, y as u32, 0], 0)
                .or_else(|| t.texel_addr(0, 0, [x as u32, y as u32, l as u32], 0))
                .ok_or_else(|| ProvenanceError::Refused(format!("{at}[{index}]: no such texel")))?;
            Ok(Place {
                at,
                memory: t.memory().clone(),
                addr,
                bytes: u64::from(d.format.bytes_per_texel()),
                merge: None,
                what: format!("{label}[{index}] (texel ({x}, {y}) of layer {l})"),
                origin,
            })
        }
        (
            OutputSelect::Texel {
                x,
                y,
                slice,
                mip,
                sample,
                ..
            },
            ResourceData::Texture(t),
        ) => {
            let d = t.desc();
            if at.is_draw_output() && (*slice != 0 || *mip != 0) {
                return refuse(format!(
                    "{at} is one subresource of the draw: it has slice 0 and mip 0 only"
                ));
            }
            if *mip >= d.mips.max(1) {
                return refuse(format!(
                    "mip {mip}: {at} has mips 0 to {}",
                    d.mips.max(1) - 1
                ));
            }
            let (w, h) = ((d.width >> mip).max(1), (d.height >> mip).max(1));
            if *x >= w || *y >= h {
                return refuse(format!(
                    "texel ({x}, {y}) is outside {at}: mip {mip} is {w} × {h}, texels (0, 0) to ({}, {})",
                    w - 1,
                    h - 1
                ));
            }
            if *sample >= d.samples.max(1) {
                return refuse(format!(
                    "sample {sample}: {at} has {} sample(s) a pixel (0 to {})",
                    d.samples.max(1),
                    d.samples.max(1) - 1
                ));
            }
            let addr = t
                .texel_addr(*mip, *slice, [*x, *y, 0], *sample)
                .ok_or_else(|| {
                    ProvenanceError::Refused(format!(
                        "slice {slice}: {at} has slices 0 to {}",
                        d.array_size().max(1) - 1
                    ))
                })?;
            let merge = match at {
                ResourceAt::RenderTarget(i) => Some((MergeTarget::Color(i), *x, *y, *sample)),
                ResourceAt::DepthStencil => Some((MergeTarget::DepthStencil, *x, *y, *sample)),
                _ => None,
            };
            let mut what = format!("{label} ({x}, {y})");
            if *slice != 0 {
                what.push_str(&format!(" slice {slice}"));
            }
            if *mip != 0 {
                what.push_str(&format!(" mip {mip}"));
            }
            if d.samples > 1 {
                what.push_str(&format!(" sample {sample}"));
            }
            Ok(Place {
                at,
                memory: t.memory().clone(),
                addr,
                bytes: u64::from(d.format.bytes_per_texel()),
                merge,
                what,
                origin,
            })
        }
    }
}

/// A list's draw writing texel `sel` of a named texture as its render target or depth
/// buffer (a view of one subresource): the place, with the merge key in the view's
/// coordinates; `None` when the event does not render to the named resource.
fn list_target(
    p: &Prepared,
    target: &Target,
    sel: &OutputSelect,
    event: usize,
) -> Result<Option<Place>, ProvenanceError> {
    let (Work::Draw(d), Ok(r)) = (&*target.work, p.resource_named(sel.resource().trim())) else {
        return Ok(None);
    };
    let ResourceData::Texture(full) = r.data else {
        return Ok(None);
    };
    let mut views: Vec<(MergeTarget, &crate::resources::Texture)> = d
        .fixed
        .render_targets()
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            v.as_ref()
                .map(|v| (MergeTarget::Color(i as u32), &v.texture))
        })
        .collect();
    if let Some(v) = d.fixed.depth_stencil_view() {
        views.push((MergeTarget::DepthStencil, &v.texture));
    }
    let Some((mt, view)) = views.into_iter().find(|(_, v)| v.memory() == full.memory()) else {
        return Ok(None);
    };
    let name = sel.resource().trim();
    let OutputSelect::Texel {
        x,
        y,
        slice,
        mip,
        sample,
        ..
    } = *sel
    else {
        return Err(ProvenanceError::Refused(format!(
            "`{name}` is a render target of event {event}: name a texel with --texel {name} x,y"
        )));
    };
    let fd = full.desc();
    let addr = full.texel_addr(mip, slice, [x, y, 0], sample).ok_or_else(|| {
        ProvenanceError::Refused(format!(
            "texel ({x}, {y}) slice {slice} mip {mip} sample {sample} is outside `{name}` ({} × {}, {} slice(s), {} mip(s), {} sample(s))",
            fd.width,
            fd.height,
            fd.array_size(),
            fd.mips,
            fd.samples
        ))
    })?;
    // The view is one subresource: the texel is the draw's when the view's own texel
    // at (x, y) is the same bytes.
    if view.texel_addr(0, 0, [x, y, 0], sample) != Some(addr) {
        return Err(ProvenanceError::Unwritten(format!(
            "event {event} renders to another subresource of `{name}`: no lane of it wrote slice {slice} mip {mip}"
        )));
    }
    let at = match mt {
        MergeTarget::Color(i) => ResourceAt::RenderTarget(i),
        MergeTarget::DepthStencil => ResourceAt::DepthStencil,
    };
    Ok(Some(Place {
        at,
        memory: full.memory().clone(),
        addr,
        bytes: u64::from(fd.format.bytes_per_texel()),
        merge: Some((mt, x, y, sample)),
        what: format!("{name} ({x}, {y}) slice {slice}"),
        origin: format!(
            "what it held before event {event} (the job's contents and the commands before it)"
        ),
    }))
}

fn read(m: &crate::resources::Memory, addr: u64, n: u64) -> Vec<u8> {
    let mut b = vec![0u8; n.min(64) as usize];
    m.read_bytes(addr, &mut b);
    b
}

/// The words (4-byte aligned addresses) an element covers.
fn words(addr: u64, bytes: u64) -> Vec<u64> {
    let end = addr.saturating_add(bytes.max(1));
    (addr & !3..end).step_by(4).collect()
}

fn source_of(shader: &crate::ir::Shader, inst: u32) -> String {
    match shader.locs.get(inst as usize).map(ToString::to_string) {
        Some(s) if s != "-" => format!("instruction #{inst} ({s})"),
        _ => format!("instruction #{inst}"),
    }
}

fn thread_flags(group: [u32; 3], thread: [u32; 3], tg: [u32; 3]) -> (String, String) {
    let d = [0, 1, 2].map(|i| group[i].wrapping_mul(tg[i]).wrapping_add(thread[i]));
    (
        format!(
            "thread ({}, {}, {}) = group ({}, {}, {}) thread ({}, {}, {})",
            d[0], d[1], d[2], group[0], group[1], group[2], thread[0], thread[1], thread[2]
        ),
        format!("--thread {},{},{}", d[0], d[1], d[2]),
    )
}

fn pixel_words(sel: LaneSelect) -> (String, String) {
    match sel {
        LaneSelect::Pixel { x, y, sample, prim } => {
            let mut w = format!("pixel ({x}, {y})");
            let mut f = format!("--pixel {x},{y}");
            if sample != 0 {
                w.push_str(&format!(" sample {sample}"));
                f.push_str(&format!(" --sample {sample}"));
            }
            if prim != 0 {
                f.push_str(&format!(" --prim {prim}"));
            }
            w.push_str(&format!(", the {} primitive covering it", ordinal(prim)));
            (w, f)
        }
        _ => (String::new(), String::new()),
    }
}

fn ordinal(k: u32) -> String {
    let n = u64::from(k) + 1;
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The sample a pixel lane stands for that a selection names it by: its own (a
/// per-sample lane), else the lowest it covers.
fn lane_sample(p: &PixelLane) -> u32 {
    if p.coverage >> (p.sample & 31) & 1 == 1 {
        p.sample
    } else {
        p.coverage.trailing_zeros().min(31)
    }
}

/// Finds the lane that last wrote `sel` in a run of `target` (the target of `p`, or of
/// its event `event`: `debug::from_job_event`): runs the work once, on one worker
/// thread, from its starting contents.
pub fn find(
    p: &Prepared,
    target: &Target,
    sel: &OutputSelect,
    event: Option<usize>,
) -> Result<Provenance, ProvenanceError> {
    if let Some(views) = draw_views(target) {
        return find_in_views(p, target, sel, event, &views);
    }
    let pl = place(p, target, sel, event)?;
    let mut plan = target.plan.clone();
    plan.threads = 1;
    let ran = |hooks: Hooks<'_>| -> Result<(), ProvenanceError> {
        target.run_with(&plan, hooks).map_err(|e| {
            ProvenanceError::Refused(format!("the run fails before the writer can be found: {e}"))
        })
    };
    let unwritten = |why: &str| {
        let v = read(&pl.memory, pl.addr, pl.bytes);
        let hex: Vec<String> = v.iter().map(|b| format!("{b:02x}")).collect();
        ProvenanceError::Unwritten(format!(
            "{} (bytes {}) was written by no lane of the run{why}: its value is {}",
            pl.what,
            hex.join(" "),
            pl.origin
        ))
    };
    let base = |lane, writer, flags, by, writes, contested, addr, bytes, value| Provenance {
        at: pl.at,
        what: pl.what.clone(),
        lane,
        writer,
        flags,
        by,
        writes,
        contested,
        addr,
        bytes,
        value,
        merged: pl.merge.is_some(),
        nested: None,
        view: None,
    };
    match &*target.work {
        Work::Dispatch(d) => {
            let bindings = bindings_of(&d.shader, &pl.at);
            if bindings.is_empty() {
                return Err(unwritten(" (the program binds nothing there)"));
            }
            let map = WriterMap::new(bindings.clone());
            ran(Hooks {
                writes: Some(&map),
                ..Hooks::default()
            })?;
            let value = read(&pl.memory, pl.addr, pl.bytes);
            let last = words(pl.addr, pl.bytes)
                .into_iter()
                .flat_map(|a| bindings.iter().map(move |b| (a, *b)))
                .filter_map(|(a, b)| map.writer(b, a).map(|w| (a, w)))
                .max_by_key(|(_, w)| w.order);
            let Some((addr, w)) = last else {
                return Err(unwritten(""));
            };
            let Invocation::Thread { group, thread } = w.invocation else {
                return Err(ProvenanceError::Refused(
                    "a dispatch's write came from no thread".into(),
                ));
            };
            let (writer, flags) = thread_flags(group.0, thread.0, d.shader.thread_group);
            Ok(base(
                LaneSelect::GroupThread {
                    group: group.0,
                    thread: thread.0,
                },
                writer,
                flags,
                format!("the program's {}", source_of(&d.shader, w.inst.0)),
                w.writes,
                w.contested,
                addr,
                4,
                value,
            ))
        }
        Work::Draw(d) => {
            if let Some(key) = pl.merge {
                let px = PixelWriters::new([key]);
                ran(Hooks {
                    merges: Some(&px),
                    ..Hooks::default()
                })?;
                // Read before the rank's draw restores the starting contents.
                let value = read(&pl.memory, pl.addr, pl.bytes);
                let Some((lane, writes)) = px.last_setup(key) else {
                    return Err(unwritten(" (no primitive's sample passed the tests there)"));
                };
                if d.ps.is_none() {
                    return Err(ProvenanceError::Refused(format!(
                        "{}: primitive {} wrote it, but the draw has no pixel program, so no lane ran for it",
                        pl.what, lane.prim
                    )));
                }
                let sel = target.pixel_select(&lane, key.3)?;
                let (writer, flags) = pixel_words(sel);
                let by = match key.0 {
                    MergeTarget::Color(i) => format!(
                        "the output merger wrote its SV_Target{i} there (after the depth-stencil test and the blend)"
                    ),
                    MergeTarget::DepthStencil => {
                        "the output merger wrote its depth there (after the depth-stencil test)"
                            .to_string()
                    }
                };
                return Ok(base(
                    sel, writer, flags, by, writes, false, pl.addr, pl.bytes, value,
                ));
            }
            // Every stage's lanes report their writes (`job::writers::DrawWriters`).
            let entry = draw_bindings(d, &pl.at);
            if entry.iter().all(Vec::is_empty) {
                return Err(unwritten(" (no program of the draw binds it)"));
            }
            let ws = words(pl.addr, pl.bytes);
            let dw = DrawWriters::new(vec![(entry, ws.clone())]);
            ran(Hooks {
                writes: Some(&dw),
                lanes: Some(&dw),
                pixels: Some(&dw),
                ..Hooks::default()
            })?;
            let value = read(&pl.memory, pl.addr, pl.bytes);
            let Some((addr, w)) = ws
                .iter()
                .filter_map(|a| dw.writer(0, *a).map(|w| (*a, w)))
                .max_by_key(|(_, w)| w.order)
            else {
                return Err(unwritten(""));
            };
            let program =
                stage_program(d, w.stage).map_or_else(String::new, |s| source_of(s, w.inst.0));
            let by = format!("the {} program's {program}", w.stage.name());
            let (sel, writer, flags) = match w.lane {
                DrawLane::Pixel {
                    lane: Some(lane), ..
                } => {
                    let sel = target.pixel_select(&lane, lane_sample(&lane))?;
                    let (writer, flags) = pixel_words(sel);
                    (sel, writer, flags)
                }
                DrawLane::Pixel { lane: None, .. } => {
                    return Err(ProvenanceError::Refused(format!(
                        "{}: a pixel lane wrote it last, but its wave could not be told",
                        pl.what
                    )));
                }
                DrawLane::Lane(sel) => {
                    let Some((writer, flags)) = lane_words(&sel, None) else {
                        return Err(ProvenanceError::Refused(format!(
                            "{}: its writer is no lane of the draw",
                            pl.what
                        )));
                    };
                    (sel, writer, flags)
                }
            };
            Ok(base(
                sel,
                writer,
                flags,
                by,
                w.writes,
                w.contested,
                addr,
                4,
                value,
            ))
        }
        Work::List(_) => Err(ProvenanceError::Refused(
            "a command list: its events are looked at one by one".into(),
        )),
        Work::Rays(r) => {
            // Each program indexes its own resource ranges: watch the resource through
            // every program's bindings of it.
            let per_program: Vec<Vec<Binding>> = r
                .programs
                .iter()
                .map(|(s, _)| bindings_of(s, &pl.at))
                .collect();
            if per_program.iter().all(Vec::is_empty) {
                return Err(unwritten(" (no program of the pipeline binds it)"));
            }
            let map = RayWriters::new(vec![per_program]);
            ran(Hooks {
                writes: Some(&map),
                ..Hooks::default()
            })?;
            let value = read(&pl.memory, pl.addr, pl.bytes);
            let last = words(pl.addr, pl.bytes)
                .into_iter()
                .filter_map(|a| map.writer(0, a).map(|w| (a, w)))
                .max_by_key(|(_, w)| w.order);
            let Some((addr, w)) = last else {
                return Err(unwritten(""));
            };
            let Invocation::Ray { index, program, .. } = w.invocation else {
                return Err(ProvenanceError::Refused(
                    "a ray dispatch's write came from no ray".into(),
                ));
            };
            let [x, y, z] = index.0;
            let shader = r.programs.get(program as usize).map(|p| &p.0);
            let source = shader.map_or_else(
                || format!("instruction #{}", w.inst.0),
                |s| source_of(s, w.inst.0),
            );
            let nested = match shader {
                Some(s) if program as usize != r.raygen => Some((
                    program as usize,
                    format!(
                        "{} \"{}\"",
                        crate::pipeline::rays::stage_words(s.stage),
                        s.entry
                    ),
                )),
                _ => None,
            };
            let by = match &nested {
                Some((_, name)) => format!(
                    "the {name} program's {source}, run by the ray-generation lane's TraceRay or CallShader"
                ),
                None => format!("the ray-generation program's {source}"),
            };
            let mut found = base(
                LaneSelect::Ray(index.0),
                format!("ray ({x}, {y}, {z})"),
                format!("--ray {x},{y},{z}"),
                by,
                w.writes,
                w.contested,
                addr,
                4,
                value,
            );
            found.nested = nested;
            Ok(found)
        }
    }
}

/// The views of a view-instanced draw of several views whose passes the lookup tries
/// one by one (`None`: not such a draw, or the target already watches one view).
fn draw_views(target: &Target) -> Option<Vec<u32>> {
    let Work::Draw(d) = &*target.work else {
        return None;
    };
    if d.view.is_some() {
        return None;
    }
    let views: Vec<u32> = d
        .state()
        .view_instancing
        .as_ref()?
        .views()
        .map(|(v, _)| v)
        .collect();
    (views.len() > 1).then_some(views)
}

/// [`find`] in a draw of several views: the draw runs its views one after another,
/// view 0 first (`pipeline::view_instancing`), so the last writer is the one found in
/// the pass of the highest view whose lanes wrote the output. Each view's pass is
/// looked at by a run that watches that view alone (`Target::with_view`); the line
/// names the view and its flags carry `--view N`.
fn find_in_views(
    p: &Prepared,
    target: &Target,
    sel: &OutputSelect,
    event: Option<usize>,
    views: &[u32],
) -> Result<Provenance, ProvenanceError> {
    let mut unwritten = None;
    for &v in views.iter().rev() {
        let t = target.with_view(v)?;
        match find(p, &t, sel, event) {
            Ok(mut found) => {
                found.writer = format!("{} in view {v}", found.writer);
                found.flags = format!("{} --view {v}", found.flags);
                found.view = Some(v);
                return Ok(found);
            }
            Err(ProvenanceError::Unwritten(e)) => unwritten = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(ProvenanceError::Unwritten(unwritten.unwrap_or_else(|| {
        "the draw runs no view, so no lane wrote it".to_string()
    })))
}

/// Opens a session on the lane that last wrote `sel` in event `event` of `p` (`None`:
/// the job's one dispatch or draw), run from the prepared job's resources as they are
/// (a job prepared afresh: the runs change them, UAV counters included), standing just after the lane's store (a target's
/// texel: at the lane's end, after its outputs), with the lookup's line as its first
/// note. The session runs on one worker thread, as the lookup did.
pub fn open(
    p: &Prepared,
    event: Option<usize>,
    sel: &OutputSelect,
    options: DebugOptions,
) -> Result<(Debugger, Provenance), ProvenanceError> {
    let (mut target, found, event) = match (&p.work, event) {
        (Work::List(commands), None) => last_event(p, commands, sel)?,
        _ => {
            let target = super::from_job_event(p, event)?;
            let found = find(p, &target, sel, event)?;
            (target, found, event)
        }
    };
    target.plan.threads = 1;
    if let Some(v) = found.view {
        target = target.with_view(v)?;
    }
    let mut d = Debugger::open(target, found.lane, options)?;
    let mut line = found.line();
    if let Some(e) = event {
        line = format!("event {e}: {line}");
    }
    if found.merged {
        let n = d.len();
        d.goto(n);
        line.push_str("; the session stands at the lane's end, after its outputs");
    } else if let Some((program, name)) = &found.nested {
        // The store is inside the nested program, which runs within one step of the
        // lane: stand after the last call that ran it.
        match d.last_call_running(*program) {
            Some(step) => {
                let det = d.detail(step);
                d.goto(step + 1);
                let at = det.line.map_or_else(String::new, |l| format!("line {l}: "));
                line.push_str(&format!(
                    "; the session stands after the call that ran the {name} program ({at}{}, step {step}; `rays` lists what it ran)",
                    det.text.trim()
                ));
            }
            None => line.push_str(&format!(
                "; the lane's record holds no call that ran the {name} program"
            )),
        }
    } else {
        let bindings: Vec<Binding> = bindings_of(&d.target().program.debug_shader, &found.at);
        match d.last_memory_write(&bindings, found.addr, found.bytes) {
            Some((step, _)) => {
                let det = d.detail(step);
                d.goto(step + 1);
                let at = det.line.map_or_else(String::new, |l| format!("line {l}: "));
                line.push_str(&format!(
                    "; the session stands after that store ({at}{}, step {step})",
                    det.text.trim()
                ));
            }
            None => line.push_str("; the lane's record holds no such store (see the notes)"),
        }
    }
    d.add_note(line);
    Ok((d, found))
}

/// A command list without `--event`: the last event that wrote the output. Walks the
/// events from the last: a dispatch or draw whose lanes wrote it answers; a clear, copy
/// or resolve that changed the element's bytes means no lane wrote its value last (an
/// error naming the command). Each try runs the list from the start.
fn last_event(
    p: &Prepared,
    commands: &[crate::pipeline::Command],
    sel: &OutputSelect,
) -> Result<(Target, Provenance, Option<usize>), ProvenanceError> {
    let start = p.snapshot();
    let n = sel.resource().trim();
    let named = p.resource_named(n).ok().map(|r| match r.data {
        ResourceData::Buffer { memory, .. } => memory.clone(),
        ResourceData::Texture(t) => t.memory().clone(),
    });
    let mut last_err = None;
    for e in (1..=commands.len()).rev() {
        let cmd = &commands[e - 1];
        // A `dispatch_rays` made when it runs has lanes too (`from_job_event` makes it).
        if cmd.work().is_none() && cmd.late().is_none() {
            // Did this command change the named resource?
            let Some(m) = &named else { continue };
            start.restore();
            let run = |cs: &[crate::pipeline::Command]| {
                crate::pipeline::run_list(cs, &p.plan, None).map_err(|x| {
                    ProvenanceError::Refused(format!("the list fails before event {e}: {x}"))
                })
            };
            run(&commands[..e - 1])?;
            let before = m.to_bytes();
            run(&commands[e - 1..e])?;
            if m.to_bytes() != before {
                start.restore();
                let what = if cmd.name().starts_with("execute_indirect") {
                    "whose lanes the debugger does not select yet"
                } else {
                    "which runs no program: no lane wrote what it holds"
                };
                return Err(ProvenanceError::Unwritten(format!(
                    "`{n}` was last changed by event {e} ([[command]] #{e}, a {}), {what}",
                    cmd.name()
                )));
            }
            continue;
        }
        start.restore();
        let target = super::from_job_event(p, Some(e))?;
        match find(p, &target, sel, Some(e)) {
            Ok(found) => {
                start.restore();
                // The session's target must start where the event starts.
                let target = super::from_job_event(p, Some(e))?;
                return Ok((target, found, Some(e)));
            }
            Err(ProvenanceError::Unwritten(t)) => last_err = Some(t),
            Err(ProvenanceError::Refused(t))
                if t.contains("the event is not a draw")
                    || t.contains("the event's draw has none") =>
            {
                continue;
            }
            Err(x) => {
                start.restore();
                return Err(x);
            }
        }
    }
    start.restore();
    Err(ProvenanceError::Unwritten(match last_err {
        Some(t) => format!("no event of the list wrote it; the first: {t}"),
        None => format!("no event of the list writes `{n}`"),
    }))
}
