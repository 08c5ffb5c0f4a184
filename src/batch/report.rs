//! A batch's results: the JSONL report, the JUnit XML report, and merging shards.
//!
//! # JSONL (`--jsonl FILE`)
//!
//! The first line is a [`Header`]; each further line one [`CaseResult`], in case-name
//! order. Every field but `seconds` is determined by the case's inputs and dxlane, so two
//! runs over the same cases — or the merge of N shards and one unsharded run — differ
//! only in `seconds`.
//!
//! # JUnit XML (`--junit FILE`)
//!
//! One `<testsuite>` named `dxlane batch`, one `<testcase>` per case (`classname` is the
//! case's kind, `name` its name); failing outcomes carry `<failure>` (or `<error>` for
//! `infra-failure`) with the case's output as text and, as the `message` title, its
//! status and the line that says what failed ([`failing_line`]), skips `<skipped/>`. Text and attributes are escaped, and characters XML 1.0
//! cannot carry are replaced by U+FFFD.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{BatchError, FORMAT, Shard};

/// A report read, at most.
const MAX_REPORT_BYTES: u64 = 1 << 30;

/// A case's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Exit status 0: every check held.
    Pass,
    /// Exit status 1: a check failed (an `[[expect]]`, a compared resource, a probe).
    Fail,
    /// Exit status 2: the case could not be run (a broken job, a program refused).
    Error,
    /// Any other exit status (a panic exits with 101): a bug in dxlane.
    Crash,
    /// Killed by the batch when its timeout passed.
    Timeout,
    /// The case's process was killed by a signal the batch did not send (out of memory,
    /// a user, the node going down) or could not be started: a failure of the run's
    /// infrastructure, not of the case.
    InfraFailure,
    /// Not run: on the skip list.
    Skip,
    /// Failed, as the expected-failure list says it does.
    ExpectedFail,
    /// Passed, though the expected-failure list says it fails.
    UnexpectedPass,
    /// Failed, then passed when run again; on the flake list.
    Flake,
}

impl Status {
    /// A failing outcome of a case run (before the baselines are applied).
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Status::Fail | Status::Error | Status::Crash | Status::Timeout
        )
    }

    /// Whether this outcome makes the batch's exit status 1.
    pub fn fails_batch(self) -> bool {
        self.is_failure() || self == Status::UnexpectedPass
    }

    /// The JSON spelling.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::InfraFailure => "infra-failure",
            Status::Skip => "skip",
            Status::ExpectedFail => "expected-fail",
            Status::UnexpectedPass => "unexpected-pass",
            Status::Flake => "flake",
        }
    }
}

/// The first line of a JSONL report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// [`FORMAT`].
    pub format: String,
    /// dxlane's version.
    pub version: String,
    /// The shard these results are, `i/N` (`0/1` for a whole run or a merge).
    pub shard: String,
    /// The cases of every shard together (before sharding).
    pub all_cases: usize,
    /// The cases in this report.
    pub cases: usize,
}

/// One case's result: a JSONL line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseResult {
    /// The case's name.
    pub case: String,
    /// `run`, `compare` or `shader-test`.
    pub kind: String,
    /// The outcome, baselines applied.
    pub status: Status,
    /// The last run's exit status, when it exited.
    pub exit_code: Option<i32>,
    /// Runs made: 0 (skipped), 1, or 2 (a flaky case run again).
    pub attempts: u32,
    /// What the case printed, for outcomes other than a pass (capped; the temporary
    /// output folder's path replaced by `$OUT`).
    pub message: String,
    /// Wall-clock time of the runs (0 for a cached or skipped case).
    pub seconds: f64,
}

/// Counts of outcomes, and the batch's exit status from them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Cases per outcome, in outcome order.
    pub by_status: BTreeMap<&'static str, usize>,
    /// Cases in all.
    pub total: usize,
}

impl Tally {
    /// Counts `results`.
    pub fn of(results: &[CaseResult]) -> Tally {
        let mut t = Tally::default();
        for r in results {
            *t.by_status.entry(r.status.word()).or_default() += 1;
            t.total += 1;
        }
        t
    }

    /// One line: `12 cases: 10 pass, 1 fail, 1 skip`.
    pub fn line(&self) -> String {
        let parts: Vec<String> = self
            .by_status
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        format!("{} cases: {}", self.total, parts.join(", "))
    }
}

/// The batch's exit status for `results`: 2 when a case was killed by a signal the batch
/// did not send (infrastructure), else 1 when any outcome fails the batch, else 0.
pub fn exit_code(results: &[CaseResult]) -> u8 {
    if results.iter().any(|r| r.status == Status::InfraFailure) {
        2
    } else if results.iter().any(|r| r.status.fails_batch()) {
        1
    } else {
        0
    }
}

/// The JSONL text of a report.
pub fn jsonl(header: &Header, results: &[CaseResult]) -> String {
    let mut out = String::new();
    // Serializing these plain structs cannot fail; an empty line would be caught by the
    // reader anyway.
    out.push_str(&serde_json::to_string(header).unwrap_or_default());
    out.push('\n');
    for r in results {
        out.push_str(&serde_json::to_string(r).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// Reads a JSONL report; errors name the file and line.
pub fn read_jsonl(path: &Path) -> Result<(Header, Vec<CaseResult>), BatchError> {
    let bytes = crate::job::paths::read_input(path, MAX_REPORT_BYTES, "the report size limit")
        .map_err(BatchError::Other)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| BatchError::io(path, format!("not UTF-8 text (byte {})", e.valid_up_to())))?;
    let err = |line: usize, message: String| BatchError::Line {
        file: path.to_path_buf(),
        line,
        message,
    };
    let mut lines = text.lines().enumerate();
    let header: Header = match lines.next() {
        Some((_, l)) => {
            serde_json::from_str(l).map_err(|e| err(1, format!("not a {FORMAT} header: {e}")))?
        }
        None => return Err(err(1, "empty: no header line".into())),
    };
    if header.format != FORMAT {
        return Err(err(
            1,
            format!("format `{}`, expected `{FORMAT}`", header.format),
        ));
    }
    let mut results = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let r: CaseResult =
            serde_json::from_str(l).map_err(|e| err(i + 1, format!("not a case result: {e}")))?;
        results.push(r);
    }
    if results.len() != header.cases {
        return Err(err(
            1,
            format!(
                "the header counts {} cases but the file holds {}",
                header.cases,
                results.len()
            ),
        ));
    }
    Ok((header, results))
}

/// Merges shard reports into one, as one unsharded run would have written it: every
/// shard of the same count present once, the same version, results ordered by case name.
pub fn merge(files: &[PathBuf]) -> Result<(Header, Vec<CaseResult>), BatchError> {
    let mut shards: Vec<(Shard, Header, PathBuf)> = Vec::new();
    let mut results = Vec::new();
    for f in files {
        let (h, r) = read_jsonl(f)?;
        let shard = Shard::parse(&h.shard).map_err(|e| BatchError::Line {
            file: f.clone(),
            line: 1,
            message: e,
        })?;
        if let Some((s0, h0, f0)) = shards.first() {
            if s0.count != shard.count || h0.version != h.version || h0.all_cases != h.all_cases {
                return Err(BatchError::Shard(format!(
                    "{} (shard {shard} of dxlane {}, {} cases) and {} (shard {s0} of dxlane {}, {} cases) are not shards of one run",
                    f.display(),
                    h.version,
                    h.all_cases,
                    f0.display(),
                    h0.version,
                    h0.all_cases
                )));
            }
            if let Some((_, _, other)) = shards.iter().find(|(s, _, _)| *s == shard) {
                return Err(BatchError::Shard(format!(
                    "{} and {} are both shard {shard}",
                    other.display(),
                    f.display()
                )));
            }
        }
        shards.push((shard, h, f.clone()));
        results.extend(r);
    }
    let Some((first, h0, _)) = shards.first() else {
        return Err(BatchError::Other(
            "give the shards' JSONL reports to merge".into(),
        ));
    };
    let missing: Vec<String> = (0..first.count)
        .filter(|i| !shards.iter().any(|(s, _, _)| s.index == *i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(BatchError::Shard(format!(
            "shard(s) {} of {} missing",
            missing.join(", "),
            first.count
        )));
    }
    results.sort_by(|a, b| a.case.cmp(&b.case));
    for pair in results.windows(2) {
        if pair[0].case == pair[1].case {
            return Err(BatchError::Shard(format!(
                "case `{}` is in two shards",
                pair[0].case
            )));
        }
    }
    if results.len() != h0.all_cases {
        return Err(BatchError::Shard(format!(
            "the shards hold {} cases, the run had {}",
            results.len(),
            h0.all_cases
        )));
    }
    let header = Header {
        format: FORMAT.into(),
        version: h0.version.clone(),
        shard: Shard::ALL.to_string(),
        all_cases: h0.all_cases,
        cases: results.len(),
    };
    Ok((header, results))
}

/// The JUnit XML text of a report.
pub fn junit(results: &[CaseResult]) -> String {
    let count = |f: &dyn Fn(Status) -> bool| results.iter().filter(|r| f(r.status)).count();
    let failures = count(&|s| s.fails_batch());
    let errors = count(&|s| s == Status::InfraFailure);
    let skipped = count(&|s| matches!(s, Status::Skip | Status::ExpectedFail));
    let time: f64 = results.iter().map(|r| r.seconds).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">\n",
        results.len()
    ));
    out.push_str(&format!(
        "  <testsuite name=\"dxlane batch\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">\n",
        results.len()
    ));
    for r in results {
        out.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            escape(&r.kind),
            escape(&r.case),
            r.seconds
        ));
        let detail = |tag: &str| {
            let title = match failing_line(&r.message) {
                Some(l) => format!("{}: {l}", r.status.word()),
                None => r.status.word().to_string(),
            };
            format!(
                ">\n      <{tag} message=\"{}\">{}</{tag}>\n    </testcase>\n",
                escape(&title),
                escape(&r.message)
            )
        };
        match r.status {
            Status::Pass | Status::Flake => out.push_str("/>\n"),
            Status::Skip => out.push_str(">\n      <skipped/>\n    </testcase>\n"),
            Status::ExpectedFail => out.push_str(&format!(
                ">\n      <skipped message=\"expected-fail\">{}</skipped>\n    </testcase>\n",
                escape(&r.message)
            )),
            Status::InfraFailure => out.push_str(&detail("error")),
            _ => out.push_str(&detail("failure")),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Characters of a failure's title (JUnit's `message` attribute), at most.
const MAX_TITLE_CHARS: usize = 300;

/// The line of a failing case's output that says what failed, for the `message`
/// attribute CI pages show as a failure's title: a shader-test probe or compile line
/// (`line 37: probe uav 0 (3) rui (44): (3, 0) is (0x2b)`, after the shader model of the
/// run it failed in), a job's failed `[[expect]]` with its first difference, a compared
/// resource that differs, an error `dxlane` reported, or else the first line. `None` for
/// an empty output.
pub fn failing_line(message: &str) -> Option<String> {
    let lines: Vec<&str> = message.lines().collect();
    let found = || -> Option<String> {
        // `dxlane shader-test`: `FILE: sm 5.0: fail (…)` then `  line N: …`.
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            if l.len() > t.len()
                && t.strip_prefix("line ").is_some_and(|r| {
                    r.split(':')
                        .next()
                        .is_some_and(|n| n.parse::<u64>().is_ok())
                })
            {
                let model = lines[..i].iter().rev().find_map(|h| {
                    let at = h.find(": sm ")?;
                    let rest = &h[at + 2..];
                    Some(rest.split(':').next().unwrap_or(rest).to_string())
                });
                return Some(match model {
                    Some(m) => format!("{m}: {t}"),
                    None => t.to_string(),
                });
            }
        }
        // `dxlane run`: `FAIL [[expect]] #1 (u0): …` then its first difference, indented.
        for (i, l) in lines.iter().enumerate() {
            if l.starts_with("FAIL ") {
                return Some(match lines.get(i + 1) {
                    Some(next) if next.starts_with(' ') => format!("{l}: {}", next.trim()),
                    _ => l.to_string(),
                });
            }
        }
        // `dxlane compare`: `u0 (…): 3 of 8 elements differ (…)`.
        if let Some(l) = lines.iter().find(|l| l.contains(" differ (")) {
            return Some(l.trim().to_string());
        }
        // An error: `dxlane: …`.
        if let Some(l) = lines.iter().find_map(|l| l.strip_prefix("dxlane: ")) {
            return Some(l.trim().to_string());
        }
        lines
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .map(str::to_string)
    };
    let line = found()?;
    Some(if line.chars().count() > MAX_TITLE_CHARS {
        let cut: String = line.chars().take(MAX_TITLE_CHARS).collect();
        format!("{cut}…")
    } else {
        line
    })
}

/// Escapes text for XML content and attributes; characters XML 1.0 cannot carry (most
/// C0 controls, lone surrogates cannot occur in a `str`, U+FFFE/U+FFFF) become U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// The failure titles name the failing line of each command's output (the outputs as
    /// `dxlane shader-test`, `run`, `compare` and an error print them).
    #[test]
    fn failure_titles_name_the_failing_line() {
        use super::failing_line;
        let st = "f.shader_test: sm 4.0: skip: no section applies\nf.shader_test: sm 5.1: fail (7 probes passed)\n  line 40: probe uav 1 (0, 1) r (-1.5): (0, 1) is (-2.5)\n";
        assert_eq!(
            failing_line(st).as_deref(),
            Some("sm 5.1: line 40: probe uav 1 (0, 1) r (-1.5): (0, 1) is (-2.5)")
        );
        let run = "program       double.ir\noutput        out/double.bin\nFAIL [[expect]] #1 (u0): 1 of 8 values differ\n  u0 +0x1c [7]: expected 16 (0x00000010), got 15 (0x0000000f)\nexpectations  0 passed, 1 failed\n";
        assert_eq!(
            failing_line(run).as_deref(),
            Some(
                "FAIL [[expect]] #1 (u0): 1 of 8 values differ: u0 +0x1c [7]: expected 16 (0x00000010), got 15 (0x0000000f)"
            )
        );
        let cmp = "capture   cap (job j.toml)\n\nu0 (structured buffer, exact): 3 of 8 elements differ (3 of 8 components)\n";
        assert_eq!(
            failing_line(cmp).as_deref(),
            Some("u0 (structured buffer, exact): 3 of 8 elements differ (3 of 8 components)")
        );
        assert_eq!(
            failing_line("dxlane: c.toml: [dispatch]: missing\n").as_deref(),
            Some("c.toml: [dispatch]: missing")
        );
        assert_eq!(
            failing_line("killed after its timeout of 5 s").as_deref(),
            Some("killed after its timeout of 5 s")
        );
        assert_eq!(failing_line("\n \n"), None);
        assert_eq!(
            failing_line(&"x".repeat(1000)).map(|l| l.chars().count()),
            Some(301)
        );
    }

    use super::*;

    #[test]
    fn xml_escaping() {
        // XML 1.0 §2.2 (Char) and §2.4 (markup characters in content).
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("x\u{1}y\u{ffff}\n"), "x\u{fffd}y\u{fffd}\n");
    }

    #[test]
    fn exit_codes() {
        let r = |status| CaseResult {
            case: "c".into(),
            kind: "run".into(),
            status,
            exit_code: None,
            attempts: 1,
            message: String::new(),
            seconds: 0.0,
        };
        assert_eq!(
            exit_code(&[r(Status::Pass), r(Status::ExpectedFail), r(Status::Flake)]),
            0
        );
        assert_eq!(exit_code(&[r(Status::Pass), r(Status::UnexpectedPass)]), 1);
        assert_eq!(exit_code(&[r(Status::Timeout)]), 1);
        assert_eq!(exit_code(&[r(Status::Fail), r(Status::InfraFailure)]), 2);
        let mut failed = r(Status::Fail);
        failed.message = "/t/a.shader_test: sm 5.0: fail (7 probes passed)\n  line 37: probe uav 0 (3) rui (44): (3, 0) is (0x2b)\n".into();
        assert!(
            junit(std::slice::from_ref(&failed)).contains(
                "<failure message=\"fail: sm 5.0: line 37: probe uav 0 (3) rui (44): (3, 0) is (0x2b)\">"
            ),
            "{}",
            junit(std::slice::from_ref(&failed))
        );
        let x = junit(&[r(Status::Fail), r(Status::Skip), r(Status::InfraFailure)]);
        assert!(
            x.contains("failures=\"1\" errors=\"1\" skipped=\"1\""),
            "{x}"
        );
    }
}
