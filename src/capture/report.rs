//! The comparison's report: text for people, JSON for tools.
//!
//! Owns: [`Report`] (what `dxlane compare --json` prints; its schema is
//! `docs/capture.md`'s, named by [`SCHEMA`]), its text form ([`Report::text`]) and the
//! exit status ([`Report::exit_code`]: 0 equal, 1 differs; errors, 2, make no report).
//! Does not own: what is compared ([`super::compare`]) or explained
//! ([`super::explain`]).

use serde::Serialize;

use super::compare::{Bitset, Histogram, Largest, Mismatch, ResourceDiff};
use super::diff_image::Images;
use super::element::NanRule;
use super::explain::Explanation;
pub use super::figures::{short, thousands};
use super::manifest::{CaptureEntry, Device};
use crate::resources::Format;

/// The JSON report's schema name and version.
pub const SCHEMA: &str = "dxlane-compare/1";

/// Which profile the comparison ran under, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileChoice {
    /// The profile (`warp-1.0.14`).
    pub name: String,
    /// Where the choice came from: `--profile`, `the capture's WARP version, 1.0.13`, ….
    pub from: String,
}

/// The result of comparing one captured resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceReport {
    /// The capture's entry: `[[resource]] #1 (u0)`.
    pub entry: String,
    /// The resource: `u0`, `heap[2]`, `rt0`, `depth`.
    pub target: String,
    /// The captured file, as the manifest names it.
    pub file: String,
    /// The job's binding: `structured_buffer (stride 4)`, `texture2d R8G8B8A8_UNORM`.
    pub kind: String,
    /// The formats an element was read as.
    pub format: Vec<String>,
    /// The tolerance: `exact`, `ulp 2`, `abs 0.001`.
    pub tolerance: String,
    /// How NaNs compared.
    pub nan: NanRule,
    /// Elements compared (buffer elements, texels).
    pub elements: u64,
    /// Components compared.
    pub components: u64,
    /// Elements with a component beyond the tolerance.
    pub differing_elements: u64,
    /// Components beyond the tolerance.
    pub differing_components: u64,
    /// Components whose bits differ within the tolerance.
    pub within_tolerance: u64,
    /// The largest ulp distance beyond the tolerance.
    pub largest_ulp: Option<Largest>,
    /// The largest absolute difference beyond the tolerance.
    pub largest_abs: Option<Largest>,
    /// Differences beyond the tolerance by kind and size.
    pub histogram: Histogram,
    /// The first mismatches.
    pub mismatches: Vec<Mismatch>,
    /// Diff images (textures and render targets that differ).
    pub images: Option<Images>,
    /// The differing components, for explain runs.
    #[serde(skip)]
    pub differing: Bitset,
    /// Whether the lanes behind its writes were tracked (not for a draw's
    /// `[[resource]]` entries).
    #[serde(skip)]
    pub writers_tracked: bool,
}

impl ResourceReport {
    /// The report of `entry` from its comparison.
    pub fn new(
        entry: &CaptureEntry,
        kind: &str,
        formats: &[Format],
        tolerance: String,
        nan: NanRule,
        d: ResourceDiff,
        images: Option<Images>,
    ) -> ResourceReport {
        ResourceReport {
            entry: entry.name.clone(),
            // A command list's resource by its name, as the capture names it.
            target: entry
                .resource
                .clone()
                .unwrap_or_else(|| entry.target.to_string()),
            file: entry.file.display().to_string(),
            kind: kind.to_string(),
            format: formats.iter().map(|f| f.name().to_string()).collect(),
            tolerance,
            nan,
            elements: d.elements,
            components: d.components,
            differing_elements: d.differing_elements,
            differing_components: d.differing_components,
            within_tolerance: d.within_tolerance,
            largest_ulp: d.largest_ulp,
            largest_abs: d.largest_abs,
            histogram: d.histogram,
            mismatches: d.mismatches,
            images,
            differing: d.differing,
            writers_tracked: true,
        }
    }

    /// Whether anything differs beyond the tolerance.
    pub fn differs(&self) -> bool {
        self.differing_components > 0
    }
}

/// What a comparison found (the JSON report; see `docs/capture.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The job file, as given.
    pub job: String,
    /// The capture folder, as given.
    pub capture: String,
    /// The device the capture was recorded on.
    pub device: Device,
    /// The profile dxlane ran.
    pub profile: ProfileChoice,
    /// `equal` or `differs`.
    pub result: &'static str,
    /// Each captured resource, in the manifest's order.
    pub resources: Vec<ResourceReport>,
    /// What reruns under other profiles and rules found (when anything differs).
    pub explain: Option<Explanation>,
    /// Anything else worth knowing, one line each.
    pub notes: Vec<String>,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

impl Report {
    /// A report of these parts.
    pub fn new(
        job: String,
        capture: String,
        device: Device,
        profile: ProfileChoice,
        resources: Vec<ResourceReport>,
        explain: Option<Explanation>,
        notes: Vec<String>,
    ) -> Report {
        let result = if resources.iter().any(ResourceReport::differs) {
            "differs"
        } else {
            "equal"
        };
        Report {
            schema: SCHEMA,
            job,
            capture,
            device,
            profile,
            result,
            resources,
            explain,
            notes,
        }
    }

    /// 0 when every resource is equal within its tolerance, 1 when any differs.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.result != "equal")
    }

    /// The report as JSON (pretty, ending in a newline).
    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }

    /// The report for people.
    pub fn text(&self) -> String {
        let mut o = String::new();
        let line = |o: &mut String, s: String| {
            o.push_str(&s);
            o.push('\n');
        };
        line(
            &mut o,
            format!("capture   {} (job {})", self.capture, self.job),
        );
        line(&mut o, format!("device    {}", self.device.words()));
        if let Some(n) = &self.device.notes {
            line(&mut o, format!("          {n}"));
        }
        line(
            &mut o,
            format!("profile   {} ({})", self.profile.name, self.profile.from),
        );
        for r in &self.resources {
            o.push('\n');
            let read_as = if r.format.len() == 1 && r.kind.ends_with(&r.format[0]) {
                String::new()
            } else {
                format!(", as {}", r.format.join(" + "))
            };
            let head = format!("{} ({}{read_as}, {})", r.target, r.kind, r.tolerance);
            if !r.differs() {
                let within = if r.within_tolerance > 0 {
                    format!(
                        ", {} within tolerance",
                        plural(r.within_tolerance, "component", "components")
                    )
                } else {
                    String::new()
                };
                line(
                    &mut o,
                    format!(
                        "{head}: equal ({}{within})",
                        plural(r.elements, "element", "elements")
                    ),
                );
                continue;
            }
            line(
                &mut o,
                format!(
                    "{head}: {} of {} {} differ ({} of {} components)",
                    thousands(r.differing_elements),
                    thousands(r.elements),
                    if r.elements == 1 {
                        "element"
                    } else {
                        "elements"
                    },
                    thousands(r.differing_components),
                    thousands(r.components)
                ),
            );
            if let Some(l) = &r.largest_ulp {
                let abs = l
                    .abs
                    .map_or_else(String::new, |a| format!(" (abs {})", short(a)));
                line(
                    &mut o,
                    format!(
                        "  largest    {}{abs} at {}",
                        plural(l.ulp.unwrap_or(0), "ulp", "ulp"),
                        l.at
                    ),
                );
            } else if let Some(l) = &r.largest_abs {
                line(
                    &mut o,
                    format!(
                        "  largest    {} apart at {}",
                        short(l.abs.unwrap_or(0.0)),
                        l.at
                    ),
                );
            }
            let buckets: Vec<String> = r
                .histogram
                .rows()
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(w, n)| format!("{w}: {}", thousands(*n)))
                .collect();
            line(&mut o, format!("  histogram  {}", buckets.join(" · ")));
            for m in &r.mismatches {
                let how = match (m.kind, m.ulp) {
                    (super::element::DiffKind::Ulp, Some(u)) => plural(u, "ulp", "ulp"),
                    (super::element::DiffKind::Integer, _) => {
                        format!("{} apart", short(m.abs.unwrap_or(0.0)))
                    }
                    (k, _) => k.words().to_string(),
                };
                line(
                    &mut o,
                    format!(
                        "  {:<10} capture {}  dxlane {}  {how}",
                        m.at, m.capture.value, m.dxlane.value
                    ),
                );
                match &m.writer {
                    Some(w) => {
                        let src = match (&w.source, w.pixel) {
                            (Some(s), _) => format!(", {s}"),
                            // Overdraw is normal and in draw order: say how many lanes
                            // wrote the texel and that the named one came last.
                            (None, Some(_)) if w.writes > 1 => {
                                format!(" (the last of {} writes)", w.writes)
                            }
                            _ => String::new(),
                        };
                        let contested = if w.contested {
                            " (other lanes wrote it too; this one came last)"
                        } else {
                            ""
                        };
                        line(
                            &mut o,
                            format!("             written by {}{src}{contested}", w.lane),
                        );
                        if !w.debug.is_empty() {
                            line(&mut o, format!("             {}", w.debug));
                        }
                        for link in &w.origin {
                            line(&mut o, format!("             {}: {}", link.lane, link.made));
                            line(&mut o, format!("             {}", link.debug));
                        }
                    }
                    None if !r.writers_tracked => line(
                        &mut o,
                        "             writer not tracked (a draw's resource writes)".into(),
                    ),
                    None => line(
                        &mut o,
                        "             not written by the run (the job's initial data)".into(),
                    ),
                }
            }
            let shown = r.mismatches.len() as u64;
            if r.differing_components > shown {
                line(
                    &mut o,
                    format!(
                        "  … and {} more (--mismatches N lists more)",
                        thousands(r.differing_components - shown)
                    ),
                );
            }
            if let Some(i) = &r.images {
                for (d, s) in i.diff.iter().zip(&i.side_by_side) {
                    line(&mut o, format!("  images     {d}, {s}"));
                }
            }
        }
        if let Some(e) = &self.explain {
            o.push('\n');
            o.push_str(&e.text());
        }
        if !self.notes.is_empty() {
            o.push('\n');
            for n in &self.notes {
                line(&mut o, format!("note      {n}"));
            }
        }
        o.push('\n');
        let differing: Vec<&ResourceReport> =
            self.resources.iter().filter(|r| r.differs()).collect();
        if differing.is_empty() {
            line(
                &mut o,
                format!(
                    "result    equal: {} compared",
                    plural(self.resources.len() as u64, "resource", "resources")
                ),
            );
        } else {
            let el: u64 = differing.iter().map(|r| r.differing_elements).sum();
            line(
                &mut o,
                format!(
                    "result    differs: {} of {} ({} in all)",
                    differing.len(),
                    plural(self.resources.len() as u64, "resource", "resources"),
                    plural(el, "element", "elements")
                ),
            );
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(5.96e-8), "5.960e-8");
        assert_eq!(short(2.0), "2");
    }
}
