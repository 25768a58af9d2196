//! What scan nodes count for the cumulative statistics (PostgreSQL's
//! `pgstat_count_heap_scan`, `pgstat_count_heap_getnext`,
//! `pgstat_count_index_scan`, `pgstat_count_index_tuples`,
//! `pgstat_count_heap_fetch`).
//!
//! A node attaches a [`ScanTally`] to its relation's pending counters when
//! it starts (one hash lookup per scan) and counts rows in plain integers;
//! the tally adds them to the shared atomics once, when the node is
//! dropped, so a scan stopped early by LIMIT still counts what it read and
//! no row pays for more than an increment.

use sluice_access::pgstat::{PendingStats, ScanCounts};
use sluice_common::Oid;
use std::sync::Arc;

/// Counts of one scan of one relation, added to its pending counters when
/// dropped.
#[derive(Default)]
pub(crate) struct ScanTally {
    counts: Option<Arc<ScanCounts>>,
    returned: i64,
    fetched: i64,
}

impl ScanTally {
    /// start -- a scan of relation `oid` begins (counted once per tally).
    pub fn start(&mut self, stats: &mut PendingStats, oid: Oid) {
        if self.counts.is_none() {
            let counts = stats.scans(oid);
            counts.count_scan();
            self.counts = Some(counts);
        }
    }

    /// attach -- counts rows of relation `oid` fetched on behalf of a scan
    /// of another relation (a bitmap scan's table), without counting a scan.
    pub fn attach(&mut self, stats: &mut PendingStats, oid: Oid) {
        if self.counts.is_none() {
            self.counts = Some(stats.scans(oid));
        }
    }

    /// Whether the scan has started.
    pub fn started(&self) -> bool {
        self.counts.is_some()
    }

    /// One row (or index entry) returned.
    pub fn returned(&mut self) {
        self.returned += 1;
    }

    /// One table row fetched.
    pub fn fetched(&mut self) {
        self.fetched += 1;
    }
}

impl Drop for ScanTally {
    fn drop(&mut self) {
        if let Some(counts) = &self.counts {
            counts.count_returned(self.returned);
            counts.count_fetched(self.fetched);
        }
    }
}
