//! Explain: which WARP profile, or which profile-dependent rule, makes a capture match.
//!
//! Where a capture differs, the job is run again under each other WARP preset
//! (`warp-1.0.13`, `warp-1.0.14`, …) and with each rule of `exec::Profile` flipped, one
//! at a time, against the profile the comparison ran: multiply-adds fused into FMA or
//! not, wave reads of inactive lanes, fp16 rounding, the fp16 NaN, fp32 denormals. Each
//! variant is measured against the differing components of the first run: how many it
//! **fixes** (now equal), how many **still differ**, and how many it **breaks** (equal
//! before, differing now). A variant that leaves nothing differing **matches**.
//!
//! A rule is tried only when the program has an instruction the rule governs (a preset
//! that differs only in rules the program never reaches is not rerun either), so a
//! program without `mad` never reruns for FMA fusion. Every variant reruns the whole job
//! on fresh resources: mismatching lanes may depend on others (wave operations, group
//! shared memory, atomics), and a rerun of everything is what the capture saw.
//!
//! The verdict names the matching presets first, then the single rules that match on
//! their own — those are the reason ("matches with warp-1.0.13: this capture's
//! multiply-adds were not fused into FMA"). Values no WARP release is known to use
//! (fp16 rounded toward zero, the NaN `0x7e00`, denormals against the program's mode)
//! are said to be so: a capture they explain was likely made on another device.

use serde::Serialize;

use super::CaptureError;
use super::compare::Bitset;
use crate::exec::{Fp32Denormals, Profile};
use crate::ir::{ProfileRules, Shader};
use crate::resources::format::Rounding;

/// One profile-dependent rule: how to read it, flip it and say it.
struct Rule {
    /// The field's name: `fuse_mad`, `f16.nan`, ….
    field: &'static str,
    /// Whether `shader` has an instruction the rule governs, and what that is.
    reaches: fn(&Shader) -> bool,
    /// What the program lacks when it does not reach the rule.
    lacks: &'static str,
    /// The rule's value in a profile, as the field spells it.
    value: fn(&Profile, &Shader) -> String,
    /// `p` with the rule flipped.
    flip: fn(&Profile, &Shader) -> Profile,
    /// What a capture following `p`'s value of the rule did: `this capture's …`.
    says: fn(&Profile, &Shader) -> String,
    /// Whether some WARP release is known to use `p`'s value.
    known: fn(&Profile) -> bool,
}

/// Whether an instruction of `s` has `rule` among its profile rules (the instruction
/// table's `rules` column).
fn reaches(s: &Shader, rule: ProfileRules) -> bool {
    s.insts.iter().any(|i| i.profile_rules().contains(rule))
}

fn has_mad(s: &Shader) -> bool {
    reaches(s, ProfileRules::FUSE_MAD)
}

fn has_wave_read(s: &Shader) -> bool {
    reaches(s, ProfileRules::WAVE_READ_INACTIVE)
}

fn has_f16(s: &Shader) -> bool {
    reaches(s, ProfileRules::F16)
}

fn has_f32_math(s: &Shader) -> bool {
    reaches(s, ProfileRules::FP32_DENORMALS)
}

fn flushes(p: &Profile, s: &Shader) -> bool {
    p.flushes_fp32_denormals(s.fp32_denorm)
}

const RULES: &[Rule] = &[
    Rule {
        field: "fuse_mad",
        reaches: has_mad,
        lacks: "no mad",
        value: |p, _| p.fuse_mad.to_string(),
        flip: |p, _| Profile {
            fuse_mad: !p.fuse_mad,
            ..p.clone()
        },
        says: |p, _| {
            if p.fuse_mad {
                "this capture's multiply-adds were fused into FMA (one rounding), as WARP 1.0.14 and later fuse them".into()
            } else {
                "this capture's multiply-adds were not fused into FMA (two roundings), as before WARP 1.0.14".into()
            }
        },
        known: |_| true,
    },
    Rule {
        field: "wave_read_inactive_zero",
        reaches: has_wave_read,
        lacks: "no wave or quad read of another lane",
        value: |p, _| p.wave_read_inactive_zero.to_string(),
        flip: |p, _| Profile {
            wave_read_inactive_zero: !p.wave_read_inactive_zero,
            ..p.clone()
        },
        says: |p, _| {
            if p.wave_read_inactive_zero {
                "this capture's wave reads of inactive lanes gave 0, as WARP 1.0.14 and later do"
                    .into()
            } else {
                "this capture's wave reads of inactive lanes gave what the lane's register held, as before WARP 1.0.14".into()
            }
        },
        known: |_| true,
    },
    Rule {
        field: "f16.rounding",
        reaches: has_f16,
        lacks: "no 16-bit float result",
        value: |p, _| match p.f16.rounding {
            Rounding::NearestEven => "nearest_even".into(),
            Rounding::TowardZero => "toward_zero".into(),
        },
        flip: |p, _| {
            let mut q = p.clone();
            q.f16.rounding = match p.f16.rounding {
                Rounding::NearestEven => Rounding::TowardZero,
                Rounding::TowardZero => Rounding::NearestEven,
            };
            q
        },
        says: |p, _| match p.f16.rounding {
            Rounding::NearestEven => {
                "this capture's fp16 results were rounded to nearest even".into()
            }
            Rounding::TowardZero => "this capture's fp16 results were rounded toward zero".into(),
        },
        known: |p| p.f16.rounding == Rounding::NearestEven,
    },
    Rule {
        field: "f16.nan",
        reaches: has_f16,
        lacks: "no 16-bit float result",
        value: |p, _| format!("0x{:04x}", p.f16.nan),
        flip: |p, _| {
            let mut q = p.clone();
            q.f16.nan = if p.f16.nan == 0x7fff { 0x7e00 } else { 0x7fff };
            q
        },
        says: |p, _| format!("this capture's fp16 NaN results were 0x{:04x}", p.f16.nan),
        known: |p| p.f16.nan == 0x7fff,
    },
    Rule {
        field: "fp32_denormals",
        reaches: has_f32_math,
        lacks: "no 32-bit float arithmetic",
        value: |p, _| match p.fp32_denormals {
            Fp32Denormals::Program => "program".into(),
            Fp32Denormals::Flush => "flush".into(),
            Fp32Denormals::Preserve => "preserve".into(),
        },
        flip: |p, s| Profile {
            fp32_denormals: match p.fp32_denormals {
                Fp32Denormals::Program if flushes(p, s) => Fp32Denormals::Preserve,
                Fp32Denormals::Program => Fp32Denormals::Flush,
                _ => Fp32Denormals::Program,
            },
            ..p.clone()
        },
        says: |p, s| {
            let mode = s.fp32_denorm;
            match (p.fp32_denormals, flushes(p, s)) {
                (Fp32Denormals::Program, true) => {
                    format!(
                        "this capture's fp32 denormals were flushed to zero, as the program's mode ({mode}) asks"
                    )
                }
                (Fp32Denormals::Program, false) => {
                    format!(
                        "this capture's fp32 denormals were kept, as the program's mode ({mode}) asks"
                    )
                }
                (_, true) => format!(
                    "this capture's fp32 denormals were flushed to zero although the program's mode is {mode}"
                ),
                (_, false) => format!(
                    "this capture's fp32 denormals were kept although the program's mode is {mode}"
                ),
            }
        },
        known: |p| p.fp32_denormals == Fp32Denormals::Program,
    },
];

/// The rules a profile is made of, by field name, with their values (for tests and
/// reports).
pub fn rule_values(p: &Profile, s: &Shader) -> Vec<(&'static str, String)> {
    RULES.iter().map(|r| (r.field, (r.value)(p, s))).collect()
}

/// One rerun's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VariantResult {
    /// The variant: a preset's name (`warp-1.0.13`) or a rule flipped
    /// (`fuse_mad = false`).
    pub name: String,
    /// `profile` or `rule`.
    pub kind: &'static str,
    /// What it changes against the compared profile, one line per rule.
    pub changes: Vec<String>,
    /// Components that differed and now match.
    pub fixed: u64,
    /// Components that differed and still do.
    pub still_differ: u64,
    /// Components that matched and now differ.
    pub broken: u64,
    /// Whether nothing differs under it.
    pub matches: bool,
}

/// A variant not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotTried {
    /// The variant.
    pub name: String,
    /// Why not.
    pub why: String,
}

/// What the reruns found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The profile compared against.
    pub base: String,
    /// Components that differed under it.
    pub differing: u64,
    /// Each variant run, presets first.
    pub variants: Vec<VariantResult>,
    /// Variants not run.
    pub not_tried: Vec<NotTried>,
    /// The variants under which the capture matches.
    pub matches: Vec<String>,
    /// The conclusion, in one line.
    pub verdict: String,
}

impl Explanation {
    /// The explanation in a report's text.
    pub fn text(&self) -> String {
        let runs = self.variants.len();
        let mut o = format!(
            "explain   reran the job {runs} {} against {} differing components under {}\n",
            if runs == 1 { "time" } else { "times" },
            super::figures::thousands(self.differing),
            self.base
        );
        let width = self
            .variants
            .iter()
            .map(|v| v.name.len())
            .chain(self.not_tried.iter().map(|n| n.name.len()))
            .max()
            .unwrap_or(0)
            .max(10);
        for v in &self.variants {
            let outcome = if v.matches {
                format!(
                    "matches ({} fixed, none broken)",
                    super::figures::thousands(v.fixed)
                )
            } else {
                format!(
                    "{} fixed, {} still differ, {} broken",
                    super::figures::thousands(v.fixed),
                    super::figures::thousands(v.still_differ),
                    super::figures::thousands(v.broken)
                )
            };
            o.push_str(&format!("  {:<width$}  {outcome}\n", v.name));
        }
        for n in &self.not_tried {
            o.push_str(&format!("  {:<width$}  not tried: {}\n", n.name, n.why));
        }
        o.push_str(&format!("  => {}\n", self.verdict));
        o
    }
}

/// Reruns the job under every variant of `base` (see the module doc). `base_sets` are
/// the differing components of each captured resource under `base`; `rerun` runs the
/// job under a profile and returns the same sets for it.
pub fn explain(
    base: &Profile,
    shader: &Shader,
    base_sets: &[Bitset],
    rerun: &mut dyn FnMut(&Profile) -> Result<Vec<Bitset>, CaptureError>,
) -> Result<Explanation, CaptureError> {
    let differing: u64 = base_sets.iter().map(Bitset::count).sum();
    let mut variants = Vec::new();
    let mut not_tried = Vec::new();
    let mut measure = |p: &Profile| -> Result<(u64, u64, u64), CaptureError> {
        let sets = rerun(p)?;
        let mut fixed = 0;
        let mut broken = 0;
        for (b, v) in base_sets.iter().zip(&sets) {
            fixed += b.minus_count(v);
            broken += v.minus_count(b);
        }
        Ok((fixed, differing - fixed, broken))
    };
    // Presets.
    for name in Profile::PRESETS {
        if *name == base.name() {
            continue;
        }
        let Some(p) = Profile::by_name(name) else {
            continue;
        };
        let changed: Vec<&Rule> = RULES
            .iter()
            .filter(|r| (r.value)(&p, shader) != (r.value)(base, shader))
            .collect();
        let reached: Vec<&Rule> = changed
            .iter()
            .copied()
            .filter(|r| (r.reaches)(shader))
            .collect();
        if reached.is_empty() {
            not_tried.push(NotTried {
                name: name.to_string(),
                why: if changed.is_empty() {
                    format!("the same rules as {}", base.name())
                } else {
                    format!(
                        "it differs from {} only in rules the program never reaches ({})",
                        base.name(),
                        changed
                            .iter()
                            .map(|r| r.field)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            });
            continue;
        }
        let (fixed, still, broken) = measure(&p)?;
        variants.push(VariantResult {
            name: name.to_string(),
            kind: "profile",
            changes: changed
                .iter()
                .map(|r| format!("{} = {}", r.field, (r.value)(&p, shader)))
                .collect(),
            fixed,
            still_differ: still,
            broken,
            matches: still == 0 && broken == 0,
        });
    }
    // Rules, one at a time.
    let mut rule_hits = Vec::new();
    for r in RULES {
        let p = (r.flip)(base, shader);
        let name = format!("{} = {}", r.field, (r.value)(&p, shader));
        if !(r.reaches)(shader) {
            not_tried.push(NotTried {
                name,
                why: format!("the program has {}", r.lacks),
            });
            continue;
        }
        let (fixed, still, broken) = measure(&p)?;
        let matches = still == 0 && broken == 0;
        if matches {
            rule_hits.push((r, p.clone()));
        }
        variants.push(VariantResult {
            name: name.clone(),
            kind: "rule",
            changes: vec![name],
            fixed,
            still_differ: still,
            broken,
            matches,
        });
    }
    let matches: Vec<String> = variants
        .iter()
        .filter(|v| v.matches)
        .map(|v| v.name.clone())
        .collect();
    let verdict = verdict(base, shader, &variants, &rule_hits);
    Ok(Explanation {
        base: base.name().to_string(),
        differing,
        variants,
        not_tried,
        matches,
        verdict,
    })
}

fn verdict(
    base: &Profile,
    shader: &Shader,
    variants: &[VariantResult],
    rule_hits: &[(&Rule, Profile)],
) -> String {
    let reasons = |p: &Profile, only: &[&'static str]| -> Vec<String> {
        RULES
            .iter()
            .filter(|r| (r.value)(p, shader) != (r.value)(base, shader))
            .filter(|r| only.is_empty() || only.contains(&r.field))
            .filter(|r| (r.reaches)(shader))
            .map(|r| {
                let mut s = (r.says)(p, shader);
                if !(r.known)(p) {
                    s.push_str(" (no WARP release is known to do this: another device?)");
                }
                s
            })
            .collect()
    };
    let hit_fields: Vec<&'static str> = rule_hits.iter().map(|(r, _)| r.field).collect();
    if let Some(v) = variants.iter().find(|v| v.kind == "profile" && v.matches)
        && let Some(p) = Profile::by_name(&v.name)
    {
        let mut why = reasons(&p, &hit_fields);
        if why.is_empty() {
            why = reasons(&p, &[]);
        }
        return format!("matches with {}: {}", v.name, why.join("; "));
    }
    if let Some((_, p)) = rule_hits.first() {
        let why = reasons(p, &hit_fields);
        return format!(
            "matches with {}: {}",
            rule_hits
                .iter()
                .map(|(r, p)| format!("{} = {}", r.field, (r.value)(p, shader)))
                .collect::<Vec<_>>()
                .join(", or with "),
            why.join("; ")
        );
    }
    match variants
        .iter()
        .filter(|v| v.fixed > 0)
        // The first of equals: presets come before single rules.
        .rev()
        .max_by_key(|v| (v.fixed, std::cmp::Reverse(v.broken)))
    {
        Some(v) => format!(
            "no profile or single rule makes the capture match; closest: {} fixes {} of {} ({} broken)",
            v.name,
            super::figures::thousands(v.fixed),
            super::figures::thousands(v.fixed + v.still_differ),
            super::figures::thousands(v.broken)
        ),
        None if variants.is_empty() => {
            "no profile-dependent rule reaches this program: the differences are not a WARP version's; open a lane in the debugger".into()
        }
        None => {
            "no profile or rule changes the differing values: they are not a WARP version's; open a lane in the debugger".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;

    fn shader(body: &str) -> Shader {
        parse_shader(&format!(
            "shader compute\ngroup [1 1 1]\nconst r0 = 0\nblock0:\n{body}    return\n"
        ))
        .unwrap()
    }

    /// Flipping each rule of a preset gives the other value (and a second flip the first),
    /// and only the flipped field changes.
    #[test]
    fn flips_change_one_field() {
        let s = shader("    fmad r1, r0, r0, r0\n");
        let base = Profile::latest();
        for r in RULES {
            let p = (r.flip)(&base, &s);
            assert_ne!((r.value)(&p, &s), (r.value)(&base, &s), "{}", r.field);
            let changed: Vec<_> = rule_values(&p, &s)
                .into_iter()
                .zip(rule_values(&base, &s))
                .filter(|(a, b)| a != b)
                .map(|(a, _)| a.0)
                .collect();
            assert_eq!(changed, vec![r.field]);
            assert_eq!((r.value)(&(r.flip)(&p, &s), &s), (r.value)(&base, &s));
        }
    }

    #[test]
    fn rules_reach_only_programs_with_their_instructions() {
        let s = shader("    fmad r1, r0, r0, r0\n");
        assert!(has_mad(&s) && has_f32_math(&s) && !has_wave_read(&s) && !has_f16(&s));
        let s = shader("    iadd r1, r0, r0\n");
        assert!(!has_mad(&s) && !has_f32_math(&s));
    }

    /// A capture that matches only without fusion is explained by warp-1.0.13 and by
    /// `fuse_mad = false`; the verdict gives the reason (the changelog's 1.0.14 rule).
    #[test]
    fn verdict_names_the_preset_and_the_rule() {
        let s = shader("    fmad r1, r0, r0, r0\n");
        let base = Profile::latest();
        // Two differing components under the base.
        let b = bits(&[3, 70]);
        let mut rerun = |p: &Profile| -> Result<Vec<Bitset>, CaptureError> {
            Ok(vec![if p.fuse_mad {
                bits(&[3, 70])
            } else {
                Bitset::default()
            }])
        };
        let e = explain(&base, &s, std::slice::from_ref(&b), &mut rerun).unwrap();
        assert_eq!(e.differing, 2);
        assert_eq!(e.matches, vec!["warp-1.0.13", "fuse_mad = false"]);
        assert!(
            e.verdict.starts_with(
                "matches with warp-1.0.13: this capture's multiply-adds were not fused into FMA"
            ),
            "{}",
            e.verdict
        );
        // The wave-read and fp16 rules are not tried: the program has neither.
        assert!(
            e.not_tried
                .iter()
                .any(|n| n.name.starts_with("wave_read_inactive_zero"))
        );
        let v = &e.variants[0];
        assert_eq!((v.fixed, v.still_differ, v.broken), (2, 0, 0));
    }

    #[test]
    fn a_partial_fix_is_the_closest_not_a_match() {
        let s = shader("    fmad r1, r0, r0, r0\n");
        let base = Profile::latest();
        let b = bits(&[1, 2, 3]);
        let mut rerun = |p: &Profile| -> Result<Vec<Bitset>, CaptureError> {
            Ok(vec![if p.fuse_mad {
                bits(&[1, 2, 3])
            } else {
                bits(&[3, 9])
            }])
        };
        let e = explain(&base, &s, std::slice::from_ref(&b), &mut rerun).unwrap();
        assert!(e.matches.is_empty());
        assert!(
            e.verdict
                .contains("closest: warp-1.0.13 fixes 2 of 3 (1 broken)"),
            "{}",
            e.verdict
        );
    }

    fn bits(v: &[u64]) -> Bitset {
        let mut b = Bitset::default();
        for &i in v {
            b.insert(i);
        }
        b
    }
}
