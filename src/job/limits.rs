//! What a job may cost: the memory its resources (and every copy made of them) take, the
//! most an input file may hold, and the defaults of a run's total work.
//!
//! Owns: the memory budget every allocation of a job is counted against before it is
//! made, the size limits of the files a job reads, and the run-wide budgets' defaults.
//! Does not own: the limits of execution itself (`exec::Limits`, `exec::RunBudget`),
//! where outputs may go and how inputs are read (the gates of [`super::paths`]).
//!
//! # Rules
//!
//! - Every resource's storage is counted against `[options] max_memory` (default
//!   [`super::bind::DEFAULT_MAX_RESOURCE_BYTES`]) before it is allocated, and so is every
//!   transient copy made while filling it (the bytes a `data` form lists or a file
//!   holds), at its peak: a job that fits the budget never holds more than the budget.
//! - Allocations are fallible: when the system refuses one, the job fails with an error
//!   naming the resource and the size, not an abort.
//! - An input file (`data = { file = … }`, a program, a `.png`) is read through
//!   [`super::paths::read_input`] no further than what it may hold (for a program,
//!   [`MAX_PROGRAM_BYTES`]; for data, what its resource can hold).

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

/// `n` zero bytes, allocated fallibly: when the system refuses, an error giving the size
/// (the caller names the entry), not an abort.
pub fn zeroed_bytes(n: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| format!("the system refused {n} bytes"))?;
    v.resize(n, 0);
    Ok(v)
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
}
