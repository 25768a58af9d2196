//! Per-backend buffer usage counters (PostgreSQL's `pgBufferUsage`, the
//! shared part of `BufferUsage` in `executor/instrument.h`).
//!
//! Every backend counts what its own page accesses did to the shared pool:
//! pages found there (hit), read into it from disk (read), changed from
//! clean to dirty (dirtied) and written out (written, which as in
//! PostgreSQL 15 includes new pages added by extending a relation). EXPLAIN
//! (ANALYZE, BUFFERS) reads the counters before and after each plan node
//! runs and shows the difference.
//!
//! The counters are thread-local: each session runs on its own thread, so
//! counting costs a plain add with no atomics or sharing, and a background
//! thread's writes (checkpoints) are its own. The pool-wide totals stay in
//! the pool (`BufferPoolStats`).

use std::cell::Cell;
use std::ops::{AddAssign, Sub};

/// What a backend's page accesses did, since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferUsage {
    /// Pages found in the pool.
    pub shared_hit: u64,
    /// Pages read into the pool from disk.
    pub shared_read: u64,
    /// Pages this backend changed from clean to dirty.
    pub shared_dirtied: u64,
    /// Pages this backend wrote out (or added by extending a relation).
    pub shared_written: u64,
}

impl BufferUsage {
    /// The calling thread's counters.
    pub fn current() -> BufferUsage {
        USAGE.with(Cell::get)
    }

    /// Whether nothing was counted.
    pub fn is_zero(&self) -> bool {
        *self == BufferUsage::default()
    }

    /// EXPLAIN's text: `shared hit=3 read=2 dirtied=1 written=4`, naming
    /// only the counts that are not zero.
    pub fn explain_text(&self) -> String {
        let counts = [
            ("hit", self.shared_hit),
            ("read", self.shared_read),
            ("dirtied", self.shared_dirtied),
            ("written", self.shared_written),
        ];
        let shown: Vec<String> =
            counts.iter().filter(|(_, n)| *n > 0).map(|(name, n)| format!("{name}={n}")).collect();
        format!("shared {}", shown.join(" "))
    }
}

impl Sub for BufferUsage {
    type Output = BufferUsage;
    fn sub(self, earlier: BufferUsage) -> BufferUsage {
        BufferUsage {
            shared_hit: self.shared_hit - earlier.shared_hit,
            shared_read: self.shared_read - earlier.shared_read,
            shared_dirtied: self.shared_dirtied - earlier.shared_dirtied,
            shared_written: self.shared_written - earlier.shared_written,
        }
    }
}

impl AddAssign for BufferUsage {
    fn add_assign(&mut self, more: BufferUsage) {
        self.shared_hit += more.shared_hit;
        self.shared_read += more.shared_read;
        self.shared_dirtied += more.shared_dirtied;
        self.shared_written += more.shared_written;
    }
}

thread_local! {
    static USAGE: Cell<BufferUsage> = const { Cell::new(BufferUsage {
        shared_hit: 0,
        shared_read: 0,
        shared_dirtied: 0,
        shared_written: 0,
    }) };
}

/// Adds to the calling thread's counters.
pub(super) fn count(f: impl FnOnce(&mut BufferUsage)) {
    USAGE.with(|u| {
        let mut usage = u.get();
        f(&mut usage);
        u.set(usage);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_thread_and_subtract() {
        let before = BufferUsage::current();
        count(|u| u.shared_hit += 2);
        count(|u| u.shared_dirtied += 1);
        let delta = BufferUsage::current() - before;
        assert_eq!(delta, BufferUsage { shared_hit: 2, shared_dirtied: 1, ..Default::default() });
        assert_eq!(delta.explain_text(), "shared hit=2 dirtied=1");
        let other = std::thread::spawn(BufferUsage::current).join().unwrap();
        assert!(other.is_zero());
    }
}
