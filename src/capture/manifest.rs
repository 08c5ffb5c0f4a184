//! `capture.toml`: what a capture folder holds.
//!
//! Owns: the file's schema (serde types, unknown keys refused), reading it through the
//! read gate (`job::paths`: a regular file, not a link, a bounded read), and checking each entry's keys into a [`CaptureEntry`] — the target, the file,
//! the layout and the comparison rules — with errors that name the entry and, for TOML
//! errors, the line, column and byte. Does not own: matching entries with a job's
//! resources (`super::run`) or the layout rules ([`super::layout`]).
//!
//! ```toml
//! job = "mandelbrot.toml"          # the job file's name: a capture of another job is refused
//! program_md5 = "0123…"            # optional: the program file's MD5 (checked when given)
//! event = 3                        # optional, command lists: taken after command 3
//!
//! [device]                         # free text, kept in reports
//! adapter = "Microsoft Basic Render Driver"
//! warp = "1.0.14"                  # WARP version, when known
//! os = "Windows 11 (26100)"
//! profile = "warp-1.0.14"          # optional: the dxlane profile to compare under
//! notes = "…"
//!
//! [[resource]]
//! reg = "u0"                       # or heap = N, render_target = N, depth = true
//!                                  # (depth_stencil = true, as [[expect]] spells it),
//!                                  # or resource = "name" (a command list's resource)
//! resolved = true                  # render targets: the file holds the resolved image
//! space = 0
//! file = "u0.bin"                  # relative to the capture folder, and inside it
//! format = "R32_FLOAT"             # how to read a buffer's elements (or a list of formats)
//! layout = "d3d12"                 # textures: "tight" (default) or "d3d12"
//! row_pitch = 256                  # or explicit pitches for one subresource
//! tolerance = { ulp = 2 }          # "exact" (default), { ulp = N }, { abs = X }
//! nan = "any"                      # "exact" (default): NaN payloads must match
//! ```

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use super::CaptureError;
use super::element::NanRule;
use super::layout::{LayoutSpec, Packing};
use crate::job::ResourceAt;
use crate::job::{Register, paths};
use crate::resources::Format;
use crate::resources::format::Tolerance;

/// The most bytes of a `capture.toml` read.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// The most `[[resource]]` entries of one capture.
pub const MAX_ENTRIES: usize = 4096;

/// The name of the manifest in a capture folder.
pub const MANIFEST: &str = "capture.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSchema {
    job: String,
    program_md5: Option<String>,
    event: Option<usize>,
    #[serde(default)]
    device: Device,
    #[serde(default, rename = "resource")]
    resources: Vec<EntrySchema>,
}

/// `[device]`: where the capture was recorded (free text, kept in reports).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// The adapter's description (`DXGI_ADAPTER_DESC1::Description`).
    pub adapter: Option<String>,
    /// The WARP version, when the adapter is WARP and the version is known (`1.0.14`).
    pub warp: Option<String>,
    /// The operating system and its build.
    pub os: Option<String>,
    /// The dxlane profile to compare under (`dxlane run --record` writes the one it ran).
    pub profile: Option<String>,
    /// Anything else.
    pub notes: Option<String>,
}

impl Device {
    /// The device in one line: `Microsoft Basic Render Driver, WARP 1.0.14, Windows 11`.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.adapter {
            parts.push(a.clone());
        }
        if let Some(w) = &self.warp {
            parts.push(format!("WARP {w}"));
        }
        if let Some(o) = &self.os {
            parts.push(o.clone());
        }
        if parts.is_empty() {
            "not stated".into()
        } else {
            parts.join(", ")
        }
    }

    /// The preset named by the device's WARP version (`1.0.13` → `warp-1.0.13`), when
    /// there is one.
    pub fn warp_preset(&self) -> Option<String> {
        let v = self.warp.as_deref()?.trim();
        let v = v.strip_prefix('v').unwrap_or(v);
        let name = format!("warp-{v}");
        crate::exec::Profile::by_name(&name).map(|_| name)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntrySchema {
    reg: Option<String>,
    resource: Option<String>,
    space: Option<u32>,
    heap: Option<u32>,
    render_target: Option<u32>,
    depth: Option<bool>,
    depth_stencil: Option<bool>,
    resolved: Option<bool>,
    file: PathBuf,
    format: Option<Formats>,
    offset: Option<u64>,
    bytes: Option<u64>,
    subresource: Option<u32>,
    layout: Option<String>,
    file_offset: Option<u64>,
    row_pitch: Option<u64>,
    depth_pitch: Option<u64>,
    sample_pitch: Option<u64>,
    tolerance: Option<Tolerance>,
    nan: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Formats {
    One(String),
    Many(Vec<String>),
}

/// A checked capture: the manifest's contents.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The capture folder.
    pub dir: PathBuf,
    /// The job file's name the capture belongs to.
    pub job: String,
    /// The program file's MD5, when stated.
    pub program_md5: Option<String>,
    /// Where it was recorded.
    pub device: Device,
    /// A command list's capture taken after command N (1-based, the event number `dxlane
    /// debug --event` takes) rather than after the whole list.
    pub event: Option<usize>,
    /// The captured resources, in file order.
    pub entries: Vec<CaptureEntry>,
}

/// One `[[resource]]` of a capture, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureEntry {
    /// The entry's name in messages: `[[resource]] #2 (u0)`.
    pub name: String,
    /// The resource (for `resource = "name"`, resolved against the job when it is
    /// loaded: `ResourceAt::Named`).
    pub target: ResourceAt,
    /// `resource = "name"`: a command list's named resource.
    pub resource: Option<String>,
    /// The file, as the manifest spells it.
    pub file: PathBuf,
    /// The file's path (the folder joined with it).
    pub path: PathBuf,
    /// `format`: how to read a buffer's elements (or a texture's texels: the texture's
    /// format or one of the same size).
    pub formats: Option<Vec<Format>>,
    /// The layout keys.
    pub layout: LayoutSpec,
    /// `tolerance`, when given.
    pub tolerance: Option<Tolerance>,
    /// `nan`, when given.
    pub nan: Option<NanRule>,
    /// `resolved = true`: the file holds a multisampled render target's resolved image
    /// (`ResolveSubresource`, then a readback), not its sample planes.
    pub resolved: bool,
}

impl Capture {
    /// Reads `dir/capture.toml` (see the module doc).
    pub fn load(dir: &Path) -> Result<Capture, CaptureError> {
        let path = dir.join(MANIFEST);
        // Through the read gate: a regular file (never a pipe, which would block), not a
        // link, read no further than the limit.
        let io = |message: String| CaptureError::Io {
            path: path.clone(),
            message: message
                .strip_prefix(&format!("{}: ", path.display()))
                .map(str::to_string)
                .unwrap_or(message),
        };
        let (file, len) = paths::open_input(&path, false).map_err(io)?;
        if len > MAX_MANIFEST_BYTES {
            return Err(CaptureError::Manifest {
                path,
                message: format!("is longer than {MAX_MANIFEST_BYTES} bytes"),
            });
        }
        let bytes =
            paths::read_opened(&path, file, len, MAX_MANIFEST_BYTES, "the largest manifest")
                .map_err(io)?;
        let text = String::from_utf8(bytes).map_err(|e| CaptureError::Manifest {
            path: path.clone(),
            message: format!("byte {}: not UTF-8 text", e.utf8_error().valid_up_to()),
        })?;
        Capture::parse(&text, dir)
    }

    /// Parses a manifest's text for the capture folder `dir`.
    pub fn parse(text: &str, dir: &Path) -> Result<Capture, CaptureError> {
        let path = dir.join(MANIFEST);
        let f: FileSchema = toml::from_str(text).map_err(|e| CaptureError::Manifest {
            path: path.clone(),
            message: toml_error(&e, text),
        })?;
        if f.resources.len() > MAX_ENTRIES {
            return Err(CaptureError::Manifest {
                path,
                message: format!(
                    "{} [[resource]] entries; at most {MAX_ENTRIES}",
                    f.resources.len()
                ),
            });
        }
        let mut entries = Vec::with_capacity(f.resources.len());
        for (i, e) in f.resources.into_iter().enumerate() {
            entries.push(check_entry(i, e, dir)?);
        }
        if entries.is_empty() {
            return Err(CaptureError::Manifest {
                path,
                message: "has no [[resource]] entries: nothing to compare".into(),
            });
        }
        Ok(Capture {
            dir: dir.to_path_buf(),
            job: f.job,
            program_md5: f.program_md5.map(|s| s.trim().to_ascii_lowercase()),
            device: f.device,
            event: f.event,
            entries,
        })
    }
}

/// TOML's error in one line, with its line, column and byte.
fn toml_error(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {column} (byte {}): {msg}", span.start)
        }
        None => msg,
    }
}

fn entry_name(i: usize, e: &EntrySchema) -> String {
    let depth = e.depth == Some(true) || e.depth_stencil == Some(true);
    let what = match (&e.reg, e.heap, e.render_target, depth) {
        (Some(r), ..) => match e.space {
            Some(s) if s != 0 => format!(" ({r}, space{s})"),
            _ => format!(" ({r})"),
        },
        (None, Some(h), ..) => format!(" (heap[{h}])"),
        (None, None, Some(t), _) => format!(" (rt{t})"),
        (None, None, None, true) => " (depth)".into(),
        _ => match &e.resource {
            Some(r) => format!(" (\"{r}\")"),
            None => String::new(),
        },
    };
    format!("[[resource]] #{}{what}", i + 1)
}

fn check_entry(i: usize, e: EntrySchema, dir: &Path) -> Result<CaptureEntry, CaptureError> {
    let name = entry_name(i, &e);
    let err = |m: String| CaptureError::Entry {
        entry: name.clone(),
        message: m,
    };
    if e.depth.is_some() && e.depth_stencil.is_some() {
        return Err(err(
            "give `depth = true` or `depth_stencil = true`, not both (they name the same buffer)"
                .into(),
        ));
    }
    let depth = e.depth == Some(true) || e.depth_stencil == Some(true);
    let targets = [
        e.resource.is_some(),
        e.reg.is_some(),
        e.heap.is_some(),
        e.render_target.is_some(),
        depth,
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if targets != 1 {
        return Err(err(
            "give exactly one of `reg` (with `space`), `heap`, `render_target`, `depth = true` or `resource` (a command list's named resource)"
                .into(),
        ));
    }
    if e.space.is_some() && e.reg.is_none() {
        return Err(err("`space` goes with `reg`".into()));
    }
    let resolved = e.resolved.unwrap_or(false);
    if resolved && e.render_target.is_none() {
        return Err(err(
            "`resolved` goes with `render_target` (a multisampled target's resolved image)".into(),
        ));
    }
    let target = match (&e.reg, e.heap, e.render_target) {
        // Resolved against the job's names when it is loaded.
        _ if e.resource.is_some() => ResourceAt::Named(u32::MAX),
        (Some(r), ..) => {
            let reg = Register::parse(r, e.space.unwrap_or(0))
                .ok_or_else(|| err(format!("`reg` \"{r}\" is not a register (\"u0\", \"t3\")")))?;
            ResourceAt::Register(reg)
        }
        (None, Some(h), _) => ResourceAt::Heap(h),
        (None, None, Some(t)) => {
            if t >= 8 {
                return Err(err(format!(
                    "`render_target` {t}: D3D12 has render targets 0 to 7"
                )));
            }
            ResourceAt::RenderTarget(t)
        }
        _ => ResourceAt::DepthStencil,
    };
    // The file must stay inside the capture folder: a manifest from elsewhere cannot make
    // compare read the user's other files.
    let plain = e
        .file
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !plain || e.file.as_os_str().is_empty() {
        return Err(err(format!(
            "`file` \"{}\" must be a path inside the capture folder (no `..`, not absolute)",
            e.file.display()
        )));
    }
    let formats = match e.format {
        None => None,
        Some(f) => {
            let names = match f {
                Formats::One(s) => vec![s],
                Formats::Many(v) => v,
            };
            if names.is_empty() || names.len() > 64 {
                return Err(err("`format` lists 1 to 64 formats".into()));
            }
            let mut v = Vec::new();
            for n in names {
                let f = Format::from_name(&n).ok_or_else(|| {
                    let hint = crate::job::closest(&n, Format::ALL.iter().map(|f| f.name()))
                        .map_or_else(String::new, |c| format!(" (did you mean {c}?)"));
                    err(format!("`format` \"{n}\" is not a DXGI format{hint}"))
                })?;
                v.push(f);
            }
            Some(v)
        }
    };
    let packing = match e.layout.as_deref() {
        None | Some("tight") => Packing::Tight,
        Some("d3d12") => Packing::D3d12,
        Some(o) => {
            return Err(err(format!(
                "`layout` \"{o}\": \"tight\" (dxlane's) or \"d3d12\" (GetCopyableFootprints)"
            )));
        }
    };
    let nan = match e.nan.as_deref() {
        None => None,
        Some("exact") => Some(NanRule::Exact),
        Some("any") => Some(NanRule::Any),
        Some(o) => {
            return Err(err(format!(
                "`nan` \"{o}\": \"exact\" (payloads must match) or \"any\""
            )));
        }
    };
    if let Some(Tolerance::Abs(x)) = e.tolerance
        && !(x.is_finite() && x >= 0.0)
    {
        return Err(err(format!("`tolerance` abs {x}: give a finite value ≥ 0")));
    }
    Ok(CaptureEntry {
        name: name.clone(),
        target,
        resource: e.resource,
        path: dir.join(&e.file),
        file: e.file,
        formats,
        layout: LayoutSpec {
            packing,
            file_offset: e.file_offset.unwrap_or(0),
            row_pitch: e.row_pitch,
            depth_pitch: e.depth_pitch,
            sample_pitch: e.sample_pitch,
            subresource: e.subresource,
            offset: e.offset,
            bytes: e.bytes,
        },
        tolerance: e.tolerance,
        nan,
        resolved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Capture, String> {
        Capture::parse(text, Path::new("cap")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_full_manifest_parses() {
        let c = parse(
            r#"
job = "mandelbrot.toml"
program_md5 = "ABCD"
[device]
adapter = "Microsoft Basic Render Driver"
warp = "1.0.13"
os = "Windows 11"
[[resource]]
reg = "u1"
space = 2
file = "u1.bin"
format = ["R32G32_FLOAT", "R32_UINT"]
tolerance = { ulp = 2 }
nan = "any"
[[resource]]
render_target = 0
file = "sub/rt0.bin"
layout = "d3d12"
"#,
        )
        .unwrap();
        assert_eq!(c.program_md5.as_deref(), Some("abcd"));
        assert_eq!(c.device.warp_preset().as_deref(), Some("warp-1.0.13"));
        assert_eq!(
            c.device.words(),
            "Microsoft Basic Render Driver, WARP 1.0.13, Windows 11"
        );
        assert_eq!(c.entries[0].name, "[[resource]] #1 (u1, space2)");
        assert_eq!(c.entries[0].target.to_string(), "u1, space2");
        assert_eq!(c.entries[0].formats.as_ref().unwrap().len(), 2);
        assert_eq!(c.entries[0].tolerance, Some(Tolerance::Ulp(2)));
        assert_eq!(c.entries[1].target, ResourceAt::RenderTarget(0));
        assert_eq!(c.entries[1].layout.packing, Packing::D3d12);
        assert_eq!(c.entries[1].path, Path::new("cap/sub/rt0.bin"));
    }

    /// Bad input names the entry, or the line, column and byte.
    #[test]
    fn bad_manifests_name_the_entry_or_the_byte() {
        let e = parse("job = \"j\"\n[[resource]]\nreg = \"u0\"\nfile = \"a\"\nrow_pich = 4\n")
            .unwrap_err();
        assert!(
            e.contains("line 5, column 1 (byte 45)") && e.contains("row_pich"),
            "{e}"
        );
        let e = parse("job = \"j\"\n[[resource]]\nreg = \"x0\"\nfile = \"a\"\n").unwrap_err();
        assert!(
            e.contains("[[resource]] #1 (x0)") && e.contains("not a register"),
            "{e}"
        );
        let e =
            parse("job = \"j\"\n[[resource]]\nreg = \"u0\"\nheap = 1\nfile = \"a\"\n").unwrap_err();
        assert!(e.contains("exactly one"), "{e}");
        let e =
            parse("job = \"j\"\n[[resource]]\nreg = \"u0\"\nfile = \"../secret\"\n").unwrap_err();
        assert!(e.contains("inside the capture folder"), "{e}");
        let e = parse("job = \"j\"\n[[resource]]\nreg = \"u0\"\nfile = \"/etc/x\"\n").unwrap_err();
        assert!(e.contains("inside the capture folder"), "{e}");
        let e = parse(
            "job = \"j\"\n[[resource]]\nreg = \"u0\"\nfile = \"a\"\nformat = \"R32_FLAOT\"\n",
        )
        .unwrap_err();
        assert!(e.contains("did you mean R32_FLOAT"), "{e}");
        let e =
            parse("job = \"j\"\n[[resource]]\nreg = \"u0\"\nfile = \"a\"\nlayout = \"padded\"\n")
                .unwrap_err();
        assert!(e.contains("`layout`"), "{e}");
        let e = parse("job = \"j\"\n").unwrap_err();
        assert!(e.contains("no [[resource]]"), "{e}");
        let e = parse("job = \"j\"\n[[resource]]\nrender_target = 9\nfile = \"a\"\n").unwrap_err();
        assert!(e.contains("0 to 7"), "{e}");
        let e = parse("[[resource]]\nreg = \"u0\"\nfile = \"a\"\n").unwrap_err();
        assert!(e.contains("job"), "{e}");
        let e = parse(
            "job = \"j\"\n[[resource]]\nreg = \"u0\"\nfile = \"a\"\ntolerance = { abs = -1.0 }\n",
        )
        .unwrap_err();
        assert!(e.contains("finite"), "{e}");
    }
}
