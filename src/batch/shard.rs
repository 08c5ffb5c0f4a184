//! Deterministic static sharding, as Mesa's deqp-runner does it: every machine of a
//! sharded run reads the same case list and keeps the cases whose name's digest falls in
//! its shard, so no coordinator is needed and a case always lands on the same shard.
//!
//! The digest is MD5 (RFC 1321) of the case name's UTF-8 bytes, its first 8 bytes read
//! as a big-endian `u64`; a case belongs to shard `digest mod N`. MD5 is used as a stable
//! spreading function, not for security: it is the same on every machine, release and
//! platform, unlike std's randomly keyed `DefaultHasher`.
//!
//! Shards are numbered from 0: `--shard 0/4` … `--shard 3/4`. Without `--shard`, the
//! shard comes from the scheduler's environment, the first of these found:
//!
//! | scheduler | index | count |
//! |---|---|---|
//! | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` (from 0) | `DXLANE_SHARD_COUNT` (set it to the Job's `completions`; Kubernetes does not export it) |
//! | Slurm job array | `SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN`, divided by `SLURM_ARRAY_TASK_STEP` when set | `SLURM_ARRAY_TASK_COUNT` |
//! | GitLab CI `parallel:` | `CI_NODE_INDEX` − 1 (GitLab counts from 1) | `CI_NODE_TOTAL` |
//!
//! and `0/1` (every case) when none is. An index without its count, or values that do
//! not fit, are errors naming the variables.

use md5::{Digest, Md5};

/// One shard of N: `index` in `0..count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: u32,
    /// How many shards there are (at least 1).
    pub count: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Every case: shard 0 of 1.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Checks `index < count`, `count ≥ 1`.
    pub fn new(index: u32, count: u32) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is not below the shard count {count} (shards are numbered from 0)"
            ));
        }
        Ok(Shard { index, count })
    }

    /// Parses `i/N` (`--shard`).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad =
            || format!("--shard \"{text}\": give INDEX/COUNT with 0 ≤ INDEX < COUNT, e.g. 0/4");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let i: u32 = i.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n).map_err(|e| format!("--shard \"{text}\": {e}"))
    }

    /// The shard the scheduler's environment names (see the module doc), read through
    /// `var`; `None` when no scheduler's variables are set. Also returns where it came
    /// from, for the log.
    pub fn from_env(
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<(Shard, &'static str)>, String> {
        let num = |name: &str| -> Result<Option<i64>, String> {
            match var(name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<i64>()
                    .map(Some)
                    .map_err(|_| format!("{name}=\"{v}\" is not a whole number")),
            }
        };
        let need = |name: &str, with: &str| -> Result<i64, String> {
            num(name)?.ok_or_else(|| format!("{with} is set but {name} is not"))
        };
        let make = |index: i64, count: i64, what: &str| -> Result<Shard, String> {
            let index = u32::try_from(index)
                .map_err(|_| format!("{what}: the shard index {index} is out of range"))?;
            let count = u32::try_from(count)
                .map_err(|_| format!("{what}: the shard count {count} is out of range"))?;
            Shard::new(index, count).map_err(|e| format!("{what}: {e}"))
        };
        if let Some(i) = num("JOB_COMPLETION_INDEX")? {
            let n = need("DXLANE_SHARD_COUNT", "JOB_COMPLETION_INDEX")?;
            let s = make(i, n, "JOB_COMPLETION_INDEX/DXLANE_SHARD_COUNT")?;
            return Ok(Some((
                s,
                "Kubernetes (JOB_COMPLETION_INDEX, DXLANE_SHARD_COUNT)",
            )));
        }
        if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
            let n = need("SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_ID")?;
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = num("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let offset = id - min;
            if offset < 0 || offset % step != 0 {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID {id} is not in the array starting at SLURM_ARRAY_TASK_MIN {min} with step {step}"
                ));
            }
            let s = make(
                offset / step,
                n,
                "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT",
            )?;
            return Ok(Some((s, "Slurm (SLURM_ARRAY_TASK_ID, _MIN, _COUNT)")));
        }
        if let Some(i) = num("CI_NODE_INDEX")? {
            let n = need("CI_NODE_TOTAL", "CI_NODE_INDEX")?;
            if i < 1 {
                return Err(format!("CI_NODE_INDEX {i}: GitLab numbers nodes from 1"));
            }
            let s = make(i - 1, n, "CI_NODE_INDEX/CI_NODE_TOTAL")?;
            return Ok(Some((s, "GitLab (CI_NODE_INDEX, CI_NODE_TOTAL)")));
        }
        Ok(None)
    }

    /// Whether the case named `name` belongs to this shard.
    pub fn owns(&self, name: &str) -> bool {
        case_digest(name) % u64::from(self.count) == u64::from(self.index)
    }
}

/// The stable digest a case is sharded by: the first 8 bytes of MD5(name), big-endian.
pub fn case_digest(name: &str) -> u64 {
    let d = Md5::digest(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn digest_is_md5_and_stable() {
        // MD5("") = d41d8cd98f00b204e9800998ecf8427e (RFC 1321 appendix A.5).
        assert_eq!(case_digest(""), 0xd41d8cd98f00b204);
        // MD5("abc") = 900150983cd24fb0d6963f7d28e17f72 (RFC 1321 appendix A.5).
        assert_eq!(case_digest("abc"), 0x900150983cd24fb0);
    }

    #[test]
    fn every_case_lands_on_exactly_one_shard() {
        for name in ["a.toml", "b/c.shader_test", "capture_demo", ""] {
            let owners: Vec<u32> = (0..5)
                .filter(|&i| Shard::new(i, 5).unwrap().owns(name))
                .collect();
            assert_eq!(owners.len(), 1, "{name}");
        }
        assert!(Shard::ALL.owns("anything"));
    }

    #[test]
    fn parse_shard() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        assert!(Shard::parse("4/4").unwrap_err().contains("not below"));
        assert!(Shard::parse("0/0").is_err());
        assert!(Shard::parse("1").is_err());
        assert!(Shard::parse("-1/3").is_err());
    }

    #[test]
    fn shard_from_kubernetes_slurm_and_gitlab() {
        assert_eq!(Shard::from_env(&env(&[])).unwrap(), None);
        let (s, _) = Shard::from_env(&env(&[
            ("JOB_COMPLETION_INDEX", "3"),
            ("DXLANE_SHARD_COUNT", "8"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(s, Shard { index: 3, count: 8 });
        assert!(
            Shard::from_env(&env(&[("JOB_COMPLETION_INDEX", "3")]))
                .unwrap_err()
                .contains("DXLANE_SHARD_COUNT")
        );
        // An array `--array=1-4`: ids 1..=4, min 1.
        let (s, _) = Shard::from_env(&env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(s, Shard { index: 3, count: 4 });
        // `--array=0-6:2`: ids 0, 2, 4, 6.
        let (s, _) = Shard::from_env(&env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(s, Shard { index: 2, count: 4 });
        // GitLab counts from 1.
        let (s, _) = Shard::from_env(&env(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "3")]))
            .unwrap()
            .unwrap();
        assert_eq!(s, Shard { index: 0, count: 3 });
        assert!(Shard::from_env(&env(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "3")])).is_err());
        assert!(Shard::from_env(&env(&[("CI_NODE_INDEX", "4"), ("CI_NODE_TOTAL", "3")])).is_err());
        assert!(Shard::from_env(&env(&[("CI_NODE_INDEX", "x"), ("CI_NODE_TOTAL", "3")])).is_err());
    }
}
