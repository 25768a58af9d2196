//! One session's pending statistics and the transaction-end rules that turn
//! them into changes of the shared counters (PostgreSQL 15's
//! `pgstat_relation.c`: `pgstat_count_heap_*`, `AtEOXact_PgStat_Relations`,
//! `AtEOSubXact_PgStat_Relations`).
//!
//! # Levels
//!
//! Row changes are counted in a per-relation stack of levels, one per
//! savepoint depth that changed the relation. When a level ends:
//!
//! | end | inserted | updated | deleted |
//! |---|---|---|---|
//! | top-level commit | +live | +dead | −live, +dead |
//! | abort (top level or savepoint) | +dead | +dead | nothing |
//! | RELEASE | merged into the enclosing level | | |
//!
//! Every inserted/updated/deleted row counts in n_tup_ins/upd/del whatever
//! the outcome; only committed ones count as modifications for ANALYZE.
//! TRUNCATE remembers the counts it wiped (a rollback brings them back) and
//! makes a committing transaction restart the live and dead estimates from
//! zero.
//!
//! Scan counts are not transactional: a scan node holds an `Arc` of its
//! relation's [`ScanCounts`] and adds to the atomics as it goes (from its
//! own thread: uncontended), and [`PendingStats::take`] collects them.

use super::TableDelta;
use sluice_common::Oid;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Scan counters of one relation, shared between a session's pending
/// statistics and its running scan nodes.
#[derive(Debug, Default)]
pub struct ScanCounts {
    /// Scans started.
    pub numscans: AtomicI64,
    /// Rows (or index entries) returned.
    pub tuples_returned: AtomicI64,
    /// Table rows fetched (see [`super::TableStats::tuples_fetched`]).
    pub tuples_fetched: AtomicI64,
}

impl ScanCounts {
    /// Counts one scan start.
    pub fn count_scan(&self) {
        self.numscans.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts `n` rows returned.
    pub fn count_returned(&self, n: i64) {
        self.tuples_returned.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts `n` rows fetched.
    pub fn count_fetched(&self, n: i64) {
        self.tuples_fetched.fetch_add(n, Ordering::Relaxed);
    }

    /// Takes the counts, leaving zeros.
    fn take(&self, delta: &mut TableDelta) {
        delta.numscans += self.numscans.swap(0, Ordering::Relaxed);
        delta.tuples_returned += self.tuples_returned.swap(0, Ordering::Relaxed);
        delta.tuples_fetched += self.tuples_fetched.swap(0, Ordering::Relaxed);
    }
}

/// Row changes of one savepoint level (PostgreSQL's PgStat_TableXactStatus).
#[derive(Clone, Copy, Debug, Default)]
struct Level {
    /// Savepoint depth (0: the transaction's own level).
    depth: usize,
    inserted: i64,
    updated: i64,
    deleted: i64,
    /// A TRUNCATE ran at this level; `saved` holds the counts it wiped.
    truncated: bool,
    saved: (i64, i64, i64),
}

impl Level {
    fn new(depth: usize) -> Level {
        Level { depth, ..Level::default() }
    }

    /// save_truncdrop_counters: remembers the counts a TRUNCATE wipes (only
    /// the first time at this level: a rollback goes back before them all).
    fn truncate(&mut self) {
        if !self.truncated {
            self.saved = (self.inserted, self.updated, self.deleted);
            self.truncated = true;
        }
        (self.inserted, self.updated, self.deleted) = (0, 0, 0);
    }

    /// restore_truncdrop_counters: an aborted level's TRUNCATE never was.
    fn untruncate(&mut self) {
        if self.truncated {
            (self.inserted, self.updated, self.deleted) = self.saved;
        }
    }

    /// Merges committed subtransaction level `child` into this one.
    fn absorb(&mut self, child: &Level) {
        if child.truncated {
            self.truncate();
            (self.inserted, self.updated, self.deleted) =
                (child.inserted, child.updated, child.deleted);
        } else {
            self.inserted += child.inserted;
            self.updated += child.updated;
            self.deleted += child.deleted;
        }
    }
}

/// One relation's pending counts.
#[derive(Debug, Default)]
struct PendingTable {
    /// Scans, shared with running scan nodes.
    scans: Arc<ScanCounts>,
    /// What ended levels left for the shared counters.
    ended: TableDelta,
    /// Open levels, innermost last, depths increasing.
    levels: Vec<Level>,
}

impl PendingTable {
    /// The level for savepoint depth `depth`, opened if needed.
    fn level(&mut self, depth: usize) -> &mut Level {
        if self.levels.last().is_none_or(|l| l.depth < depth) {
            self.levels.push(Level::new(depth));
        }
        self.levels.last_mut().expect("just ensured")
    }

    /// An aborted level: its rows count, inserted and updated ones as dead.
    fn abort(&mut self, mut level: Level) {
        level.untruncate();
        let d = &mut self.ended;
        d.tuples_inserted += level.inserted;
        d.tuples_updated += level.updated;
        d.tuples_deleted += level.deleted;
        d.delta_dead += level.inserted + level.updated;
    }

    /// The top level committed.
    fn commit(&mut self, level: Level) {
        let d = &mut self.ended;
        d.tuples_inserted += level.inserted;
        d.tuples_updated += level.updated;
        d.tuples_deleted += level.deleted;
        if level.truncated {
            d.truncated = true;
            d.delta_live = 0;
            d.delta_dead = 0;
        }
        d.delta_live += level.inserted - level.deleted;
        d.delta_dead += level.updated + level.deleted;
        d.changed += level.inserted + level.updated + level.deleted;
    }

    /// Levels at `depth` and above end: into the level below when
    /// `committed` (RELEASE), else aborted.
    fn end_levels(&mut self, depth: usize, committed: bool) {
        while let Some(top) = self.levels.pop_if(|l| l.depth >= depth) {
            if !committed {
                self.abort(top);
                continue;
            }
            let target = depth.saturating_sub(1);
            match self.levels.last_mut() {
                Some(below) if below.depth >= target => below.absorb(&top),
                _ => {
                    self.levels.push(Level { depth: target, ..top });
                    return;
                }
            }
        }
    }
}

/// One session's pending statistics. See the module doc.
#[derive(Debug, Default)]
pub struct PendingStats {
    tables: HashMap<Oid, PendingTable>,
}

impl PendingStats {
    /// The scan counters of relation `oid`, for a scan node to hold.
    pub fn scans(&mut self, oid: Oid) -> Arc<ScanCounts> {
        self.tables.entry(oid).or_default().scans.clone()
    }

    /// Counts `n` rows inserted into `oid` at savepoint depth `depth`.
    pub fn count_insert(&mut self, oid: Oid, depth: usize, n: i64) {
        self.table(oid).level(depth).inserted += n;
    }

    /// Counts a row of `oid` updated at `depth`; `hot` if heap-only.
    pub fn count_update(&mut self, oid: Oid, depth: usize, hot: bool) {
        let table = self.table(oid);
        table.level(depth).updated += 1;
        if hot {
            table.ended.tuples_hot_updated += 1;
        }
    }

    /// Counts a row of `oid` deleted at `depth`.
    pub fn count_delete(&mut self, oid: Oid, depth: usize) {
        self.table(oid).level(depth).deleted += 1;
    }

    /// TRUNCATE of `oid` at `depth` (pgstat_count_truncate).
    pub fn count_truncate(&mut self, oid: Oid, depth: usize) {
        self.table(oid).level(depth).truncate();
    }

    /// end_savepoints -- savepoint levels `depth..` (1-based) end: RELEASE
    /// (`committed`) hands their counts to the level below, ROLLBACK TO or
    /// an error applies the abort rule.
    pub fn end_savepoints(&mut self, depth: usize, committed: bool) {
        for table in self.tables.values_mut() {
            table.end_levels(depth.max(1), committed);
        }
    }

    /// end_transaction -- the transaction ended; every open level ends
    /// with it (AtEOXact_PgStat_Relations).
    pub fn end_transaction(&mut self, committed: bool) {
        for table in self.tables.values_mut() {
            table.end_levels(1, committed);
            if let Some(top) = table.levels.pop() {
                if committed {
                    table.commit(top);
                } else {
                    table.abort(top);
                }
            }
        }
    }

    /// take -- what ended transactions and scans left, per relation, for
    /// [`super::PgStat::flush`]. Relations no scan holds and no level is
    /// open for are forgotten, so the map stays as small as the session's
    /// working set.
    pub fn take(&mut self) -> Vec<(Oid, TableDelta)> {
        let mut out = Vec::new();
        self.tables.retain(|&oid, table| {
            let mut delta = std::mem::take(&mut table.ended);
            table.scans.take(&mut delta);
            if delta != TableDelta::default() {
                out.push((oid, delta));
            }
            !table.levels.is_empty() || Arc::strong_count(&table.scans) > 1
        });
        out
    }

    fn table(&mut self, oid: Oid) -> &mut PendingTable {
        self.tables.entry(oid).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(p: &mut PendingStats) -> TableDelta {
        p.take().into_iter().find(|(oid, _)| *oid == 1).map(|(_, d)| d).unwrap_or_default()
    }

    #[test]
    fn commit_counts_inserts_live_and_deletes_dead() {
        let mut p = PendingStats::default();
        p.count_insert(1, 0, 10);
        p.count_update(1, 0, true);
        p.count_update(1, 0, false);
        p.count_delete(1, 0);
        p.end_transaction(true);
        let d = delta(&mut p);
        assert_eq!((d.tuples_inserted, d.tuples_updated, d.tuples_deleted), (10, 2, 1));
        assert_eq!(d.tuples_hot_updated, 1);
        assert_eq!((d.delta_live, d.delta_dead, d.changed), (9, 3, 13));
    }

    #[test]
    fn abort_counts_inserts_and_updates_dead() {
        let mut p = PendingStats::default();
        p.count_insert(1, 0, 5);
        p.count_update(1, 0, false);
        p.count_delete(1, 0);
        p.end_transaction(false);
        let d = delta(&mut p);
        assert_eq!((d.tuples_inserted, d.tuples_updated, d.tuples_deleted), (5, 1, 1));
        assert_eq!((d.delta_live, d.delta_dead, d.changed), (0, 6, 0));
    }

    #[test]
    fn rolled_back_savepoint_counts_dead_and_the_rest_commits() {
        let mut p = PendingStats::default();
        p.count_insert(1, 0, 3);
        p.count_insert(1, 1, 4);
        p.end_savepoints(1, false);
        p.count_insert(1, 1, 2);
        p.end_transaction(true);
        let d = delta(&mut p);
        assert_eq!(d.tuples_inserted, 9);
        assert_eq!((d.delta_live, d.delta_dead, d.changed), (5, 4, 5));
    }

    #[test]
    fn released_savepoints_merge_into_the_level_below() {
        let mut p = PendingStats::default();
        p.count_insert(1, 2, 4);
        p.count_delete(1, 3);
        p.end_savepoints(2, true);
        p.end_savepoints(1, false);
        p.end_transaction(true);
        let d = delta(&mut p);
        assert_eq!((d.delta_live, d.delta_dead, d.changed), (0, 4, 0));
    }

    #[test]
    fn committed_truncate_restarts_the_estimates() {
        let mut p = PendingStats::default();
        p.count_insert(1, 0, 7);
        p.count_truncate(1, 0);
        p.count_insert(1, 0, 2);
        p.end_transaction(true);
        let d = delta(&mut p);
        assert!(d.truncated);
        assert_eq!((d.tuples_inserted, d.delta_live, d.delta_dead), (2, 2, 0));
    }

    #[test]
    fn rolled_back_truncate_brings_back_the_counts() {
        let mut p = PendingStats::default();
        p.count_insert(1, 0, 7);
        p.count_insert(1, 1, 1);
        p.count_truncate(1, 1);
        p.count_insert(1, 1, 2);
        p.end_savepoints(1, false);
        p.end_transaction(true);
        let d = delta(&mut p);
        assert!(!d.truncated);
        assert_eq!((d.tuples_inserted, d.delta_live, d.delta_dead), (8, 7, 1));
    }

    #[test]
    fn scans_are_collected_and_idle_tables_forgotten() {
        let mut p = PendingStats::default();
        let scans = p.scans(1);
        scans.count_scan();
        scans.count_returned(3);
        drop(scans);
        let d = delta(&mut p);
        assert_eq!((d.numscans, d.tuples_returned), (1, 3));
        assert!(p.tables.is_empty());
    }

    #[test]
    fn open_transaction_levels_are_not_flushed() {
        let mut p = PendingStats::default();
        p.count_insert(1, 0, 3);
        assert!(p.take().is_empty());
        p.end_transaction(true);
        assert_eq!(delta(&mut p).delta_live, 3);
    }
}
