//! Baselines: which cases are expected to fail, which are flaky, which are skipped.
//!
//! Each list is a text file, one entry a line, `#` starting a comment (the format of
//! `tests/expectations/`, after Mesa CI's): `NAME[,STATUS]`. `NAME` is a case name, `*`
//! in it matching any run of characters (`compat/*`). In the expected-failure list,
//! `STATUS` (`Fail`, `Error`, `Crash`, `Timeout`; any case) limits the entry to that
//! outcome, and without it any failing outcome is expected. The flake and skip lists
//! take names only.
//!
//! - An expected failure that fails is `expected-fail` (not a failure of the batch); one
//!   that passes is `unexpected-pass`, a failure, so that a fixed case gets its line
//!   removed.
//! - A flaky case that fails is run once more; when the second run passes it is `flake`
//!   (not a failure).
//! - A skipped case is not run: `skip`.

use std::path::Path;

use super::BatchError;
use super::report::Status;

/// Bytes of a baseline list read, at most.
const MAX_LIST_BYTES: u64 = 16 << 20;

/// One line of a list: a name pattern and, for expected failures, the outcome.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    pattern: String,
    status: Option<Status>,
}

/// The three lists.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    expected_failures: Vec<Entry>,
    flakes: Vec<Entry>,
    skips: Vec<Entry>,
}

impl Baseline {
    /// Reads the lists given (each optional).
    pub fn load(
        expected_failures: Option<&Path>,
        flakes: Option<&Path>,
        skips: Option<&Path>,
    ) -> Result<Baseline, BatchError> {
        Ok(Baseline {
            expected_failures: match expected_failures {
                Some(p) => read(p, true)?,
                None => Vec::new(),
            },
            flakes: match flakes {
                Some(p) => read(p, false)?,
                None => Vec::new(),
            },
            skips: match skips {
                Some(p) => read(p, false)?,
                None => Vec::new(),
            },
        })
    }

    /// Whether `name` is to be skipped.
    pub fn skipped(&self, name: &str) -> bool {
        self.skips.iter().any(|e| glob(&e.pattern, name))
    }

    /// Whether `name` is flaky (run again once when it fails).
    pub fn flaky(&self, name: &str) -> bool {
        self.flakes.iter().any(|e| glob(&e.pattern, name))
    }

    /// Whether `name` is expected to end with the failing `status`.
    pub fn expects_failure(&self, name: &str, status: Status) -> bool {
        self.expected_failures
            .iter()
            .any(|e| glob(&e.pattern, name) && e.status.is_none_or(|s| s == status))
    }

    /// Whether `name` is on the expected-failure list at all.
    pub fn listed_as_failing(&self, name: &str) -> bool {
        self.expected_failures
            .iter()
            .any(|e| glob(&e.pattern, name))
    }
}

fn read(path: &Path, with_status: bool) -> Result<Vec<Entry>, BatchError> {
    let bytes = crate::job::paths::read_input(path, MAX_LIST_BYTES, "the baseline list limit")
        .map_err(BatchError::Other)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| BatchError::io(path, format!("not UTF-8 text (byte {})", e.valid_up_to())))?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let err = |message: String| BatchError::Line {
            file: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (pattern, status) = match content.split_once(',') {
            Some((p, s)) => (p.trim(), Some(s.trim())),
            None => (content, None),
        };
        if pattern.is_empty() || pattern.contains(char::is_whitespace) {
            return Err(err(format!("`{content}`: give a case name (no spaces)")));
        }
        let status = match status {
            None => None,
            Some(s) if !with_status => {
                return Err(err(format!(
                    "`{s}`: this list takes case names only, no status"
                )));
            }
            Some(s) => Some(match s.to_ascii_lowercase().as_str() {
                "fail" => Status::Fail,
                "error" => Status::Error,
                "crash" => Status::Crash,
                "timeout" => Status::Timeout,
                _ => {
                    return Err(err(format!(
                        "status `{s}`: give Fail, Error, Crash or Timeout"
                    )));
                }
            }),
        };
        out.push(Entry {
            pattern: pattern.to_string(),
            status,
        });
    }
    Ok(out)
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, rest) = parts.split_first().unwrap_or((&"", &[]));
    let Some(mut left) = name.strip_prefix(first) else {
        return false;
    };
    let (last, middle) = rest.split_last().unwrap_or((&"", &[]));
    for m in middle {
        match left.find(m) {
            Some(at) => left = &left[at + m.len()..],
            None => return false,
        }
    }
    left.len() >= last.len() && left.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("a", "a"));
        assert!(!glob("a", "ab"));
        assert!(glob("a*", "ab"));
        assert!(glob("*b", "ab"));
        assert!(glob("a*c*e", "abcde"));
        assert!(!glob("a*c*e", "abde"));
        assert!(glob("*", ""));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn lists_parse_and_errors_name_the_line() {
        let dir = std::env::temp_dir().join(format!("dxlane-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("fails.txt");
        std::fs::write(&good, "# why\nx.toml,Fail  # a known gap\ny/*\n\n").unwrap();
        let b = Baseline::load(Some(&good), None, Some(&good)).unwrap_err();
        assert!(b.to_string().contains(":2: "), "{b}");
        let b = Baseline::load(Some(&good), None, None).unwrap();
        assert!(b.expects_failure("x.toml", Status::Fail));
        assert!(!b.expects_failure("x.toml", Status::Timeout));
        assert!(b.expects_failure("y/z", Status::Crash));
        let bad = dir.join("bad.txt");
        std::fs::write(&bad, "a\nb,Sometimes\n").unwrap();
        let e = Baseline::load(Some(&bad), None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.txt:2: status `Sometimes`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
