//! What a job may cost: the memory its resources (and every copy made of them) take, the
//! files it reads, and the defaults of a run's total work.
//!
//! Owns: the memory budget every allocation of a job is counted against before it is
//! made, reading an input file no further than what it can fill, and the run-wide
//! budgets' defaults. Does not own: the limits of execution itself (`exec::Limits`),
//! where outputs may go ([`super::paths`]).
//!
//! # Rules
//!
//! - Every resource's storage is counted against `[options] max_memory` (default
//!   [`super::bind::DEFAULT_MAX_RESOURCE_BYTES`]) before it is allocated, and so is every
//!   transient copy made while filling it (the bytes a `data` form lists or a file
//!   holds), at its peak: a job that fits the budget never holds more than the budget.
//! - Allocations are fallible: when the system refuses one, the job fails with an error
//!   naming the resource and the size, not an abort.
//! - An input file (`data = { file = … }`, a program, a `.png`) must be a regular file,
//!   and is read no further than one byte past what it may hold, so `/dev/zero` or a
//!   huge file fails after that many bytes with a message giving the limit.

use std::io::Read;
use std::path::Path;

use super::JobError;

/// The most bytes a program file may have (`[program] cs`): far above any real program,
/// well below what would hurt to read.
pub const MAX_PROGRAM_BYTES: u64 = 256 << 20;

/// The most bytes a job file may have.
pub const MAX_JOB_FILE_BYTES: u64 = 16 << 20;

/// The default budget of a run's total work: lane-instructions over all its threads
/// (`[options] max_total_lane_instructions`). At the interpreter's rate on one core
/// (about 2·10⁹ a second) this is roughly ten minutes of one core's work.
pub const DEFAULT_MAX_TOTAL_LANE_INSTRUCTIONS: u64 = 1_000_000_000_000;

/// The bytes a job's resources may take, and what they take so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    used: u64,
    limit: u64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes, none used.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget { used: 0, limit }
    }

    /// Bytes counted so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Bytes still free.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Counts `bytes` of storage for entry `name`, kept for the whole job; refuses
    /// (naming the entry) what would pass the limit.
    pub fn take(&mut self, name: &str, bytes: u64) -> Result<(), JobError> {
        self.check(name, bytes, "")?;
        self.used = self.used.saturating_add(bytes);
        Ok(())
    }

    /// Checks that `bytes` more, held only while entry `name` is being filled (a copy
    /// of its data), fit beside what is counted.
    pub fn transient(&self, name: &str, bytes: u64, what: &str) -> Result<(), JobError> {
        self.check(name, bytes, what)
    }

    fn check(&self, name: &str, bytes: u64, what: &str) -> Result<(), JobError> {
        let total = self.used.saturating_add(bytes);
        if total > self.limit {
            let what = if what.is_empty() {
                String::new()
            } else {
                format!(" ({what})")
            };
            return Err(JobError::entry(
                name,
                format!(
                    "needs {bytes} bytes{what}, which brings the job's memory to {total} bytes, past the limit of {} (`[options] max_memory`)",
                    self.limit
                ),
            ));
        }
        Ok(())
    }
}

/// Reads a regular file of at most `max` bytes. A missing file, a folder, a device, a
/// pipe or a file longer than `max` is an error naming the file and, for the last, the
/// limit and what sets it (`what_limits`, e.g. "the buffer's `size`").
pub fn read_bounded(path: &Path, max: u64, what_limits: &str) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file (a device, pipe or socket)"
        };
        return Err(format!("{shown}: {kind}; give a regular file"));
    }
    if meta.len() > max {
        return Err(format!(
            "{shown}: {} bytes, more than {max} ({what_limits})",
            meta.len()
        ));
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    // The length can change between the look and the read: read at most one byte past
    // the limit, into a buffer reserved fallibly.
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(meta.len()).unwrap_or(usize::MAX))
        .map_err(|_| format!("{shown}: cannot reserve {} bytes to read it", meta.len()))?;
    f.take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("{shown}: {e}"))?;
    if out.len() as u64 > max {
        return Err(format!(
            "{shown}: more than {max} bytes ({what_limits}); it grew while being read"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A budget counts storage, refuses past the limit naming the entry, and checks a
    /// transient copy beside what is held without keeping it.
    #[test]
    fn budget_counts_storage_and_copies() {
        let mut b = MemoryBudget::new(100);
        b.take("[[resource]] #1 (u0)", 60).unwrap();
        assert_eq!(b.left(), 40);
        let e = b.transient("[[resource]] #2 (u1)", 50, "a copy of its data");
        let msg = e.unwrap_err().to_string();
        assert!(
            msg.contains("[[resource]] #2 (u1)") && msg.contains("a copy of its data"),
            "{msg}"
        );
        b.transient("x", 40, "copy").unwrap();
        assert_eq!(b.used(), 60);
        assert!(b.take("x", 41).is_err());
    }

    /// Hostile inputs: a device that never ends, a folder, a file past its limit.
    #[test]
    fn files_are_read_no_further_than_they_may_hold() {
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20, "the buffer's `size`");
        assert!(e.unwrap_err().contains("not a regular file"));
        let e = read_bounded(Path::new("."), 10, "x").unwrap_err();
        assert!(e.contains("a folder"), "{e}");
        let dir = std::env::temp_dir().join(format!("dxlane-limits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("big.bin");
        std::fs::write(&f, [7u8; 100]).unwrap();
        let e = read_bounded(&f, 99, "the buffer's `size`").unwrap_err();
        assert!(
            e.contains("100 bytes, more than 99 (the buffer's `size`)"),
            "{e}"
        );
        assert_eq!(read_bounded(&f, 100, "x").unwrap().len(), 100);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
