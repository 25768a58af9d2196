//! Cumulative statistics: what happened to each table and index since the
//! counters were last reset (PostgreSQL 15's `utils/activity/pgstat*.c`).
//!
//! # Shape
//!
//! Two halves, as in PostgreSQL:
//!
//! * **Pending counts** ([`PendingStats`], `relation.rs`), owned by one
//!   session and touched without any lock. Scans count themselves into
//!   [`ScanCounts`] (atomics a scan node holds and adds to once, when it
//!   is dropped); INSERT, UPDATE, DELETE and TRUNCATE count into the
//!   savepoint level they run in, because whether an inserted row ends up
//!   live or dead is known only when that level and the transaction end
//!   (PostgreSQL's `AtEOXact_PgStat_Relations` rules, spelled out there).
//! * **The shared table** ([`PgStat`]): one [`TableStats`] per
//!   (database, relation OID), behind one mutex. A session adds its
//!   pending counts at every transaction end ([`PgStat::flush`]), so other
//!   sessions see them as soon as the COMMIT returns. PostgreSQL 15 flushes
//!   at most once a second and offers `pg_stat_force_next_flush()` to skip
//!   the wait; here that function has nothing left to do.
//!
//! VACUUM and ANALYZE do not count: they *set* the live and dead estimates
//! from what they found ([`PgStat::report_vacuum`],
//! [`PgStat::report_analyze`]) and stamp their times and counters.
//!
//! # Durability
//!
//! Counters are not WAL-logged. A clean shutdown writes the table to
//! `pg_stat/pgstat.stat` (`persist.rs`); the next start reads it and
//! removes the file. After a crash the file is ignored and removed, and all
//! counters start at zero, as in PostgreSQL 15.
//!
//! # Locking
//!
//! `PgStat::tables` is a `parking_lot::Mutex` held only to copy counters in
//! or out — never while doing I/O or waiting for anything else. Pending
//! counts need no lock (one session's thread); the scan atomics are shared
//! only between that session and its own scan nodes.

mod persist;
mod relation;

pub use relation::{PendingStats, ScanCounts};

use parking_lot::Mutex;
use sluice_common::Oid;
use std::collections::HashMap;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// Now as a `timestamptz` value (microseconds since 2000-01-01 UTC).
pub fn now_timestamptz() -> i64 {
    let micros = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
    micros - POSTGRES_EPOCH_MICROS
}

/// The counters of one table or index (PostgreSQL's
/// PgStat_StatTabEntry). For an index only the first three are used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Sequential scans started on a table; index scans on an index.
    pub numscans: i64,
    /// Rows returned by sequential scans (seq_tup_read); for an index, the
    /// entries its scans returned (idx_tup_read).
    pub tuples_returned: i64,
    /// Rows fetched by bitmap heap scans of a table; for an index, the
    /// table rows its plain scans fetched (idx_tup_fetch).
    pub tuples_fetched: i64,
    /// Rows inserted (n_tup_ins), whatever became of the transaction.
    pub tuples_inserted: i64,
    /// Rows updated (n_tup_upd), HOT ones included.
    pub tuples_updated: i64,
    /// Rows deleted (n_tup_del).
    pub tuples_deleted: i64,
    /// Rows updated heap-only (n_tup_hot_upd).
    pub tuples_hot_updated: i64,
    /// Estimated live rows (n_live_tup).
    pub live_tuples: i64,
    /// Estimated dead rows (n_dead_tup).
    pub dead_tuples: i64,
    /// Rows changed since the last ANALYZE (n_mod_since_analyze).
    pub mod_since_analyze: i64,
    /// Rows inserted since the last VACUUM (n_ins_since_vacuum).
    pub ins_since_vacuum: i64,
    /// Pages asked of the buffer pool (not attributed yet: always 0).
    pub blocks_fetched: i64,
    /// Of those, found in the pool (not attributed yet: always 0).
    pub blocks_hit: i64,
    /// When a manual VACUUM last finished with the table.
    pub last_vacuum: Option<i64>,
    /// When autovacuum last did.
    pub last_autovacuum: Option<i64>,
    /// When a manual ANALYZE last finished with the table.
    pub last_analyze: Option<i64>,
    /// When autovacuum last analysed it.
    pub last_autoanalyze: Option<i64>,
    /// Manual VACUUMs.
    pub vacuum_count: i64,
    /// Autovacuum VACUUMs.
    pub autovacuum_count: i64,
    /// Manual ANALYZEs.
    pub analyze_count: i64,
    /// Autovacuum ANALYZEs.
    pub autoanalyze_count: i64,
}

/// One column of [`TableStats`], as the `pg_stat_get_*(oid)` functions
/// name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// `pg_stat_get_numscans`.
    NumScans,
    /// `pg_stat_get_tuples_returned`.
    TuplesReturned,
    /// `pg_stat_get_tuples_fetched`.
    TuplesFetched,
    /// `pg_stat_get_tuples_inserted`.
    TuplesInserted,
    /// `pg_stat_get_tuples_updated`.
    TuplesUpdated,
    /// `pg_stat_get_tuples_deleted`.
    TuplesDeleted,
    /// `pg_stat_get_tuples_hot_updated`.
    TuplesHotUpdated,
    /// `pg_stat_get_live_tuples`.
    LiveTuples,
    /// `pg_stat_get_dead_tuples`.
    DeadTuples,
    /// `pg_stat_get_mod_since_analyze`.
    ModSinceAnalyze,
    /// `pg_stat_get_ins_since_vacuum`.
    InsSinceVacuum,
    /// `pg_stat_get_blocks_fetched`.
    BlocksFetched,
    /// `pg_stat_get_blocks_hit`.
    BlocksHit,
    /// `pg_stat_get_last_vacuum_time`.
    LastVacuum,
    /// `pg_stat_get_last_autovacuum_time`.
    LastAutovacuum,
    /// `pg_stat_get_last_analyze_time`.
    LastAnalyze,
    /// `pg_stat_get_last_autoanalyze_time`.
    LastAutoanalyze,
    /// `pg_stat_get_vacuum_count`.
    VacuumCount,
    /// `pg_stat_get_autovacuum_count`.
    AutovacuumCount,
    /// `pg_stat_get_analyze_count`.
    AnalyzeCount,
    /// `pg_stat_get_autoanalyze_count`.
    AutoanalyzeCount,
}

impl Counter {
    /// Whether the counter is a time (`timestamptz`) rather than a count.
    pub fn is_time(self) -> bool {
        matches!(
            self,
            Counter::LastVacuum
                | Counter::LastAutovacuum
                | Counter::LastAnalyze
                | Counter::LastAutoanalyze
        )
    }
}

impl TableStats {
    /// The value of `counter`; `None` for a time that never happened.
    pub fn get(&self, counter: Counter) -> Option<i64> {
        use Counter::*;
        Some(match counter {
            NumScans => self.numscans,
            TuplesReturned => self.tuples_returned,
            TuplesFetched => self.tuples_fetched,
            TuplesInserted => self.tuples_inserted,
            TuplesUpdated => self.tuples_updated,
            TuplesDeleted => self.tuples_deleted,
            TuplesHotUpdated => self.tuples_hot_updated,
            LiveTuples => self.live_tuples,
            DeadTuples => self.dead_tuples,
            ModSinceAnalyze => self.mod_since_analyze,
            InsSinceVacuum => self.ins_since_vacuum,
            BlocksFetched => self.blocks_fetched,
            BlocksHit => self.blocks_hit,
            LastVacuum => return self.last_vacuum,
            LastAutovacuum => return self.last_autovacuum,
            LastAnalyze => return self.last_analyze,
            LastAutoanalyze => return self.last_autoanalyze,
            VacuumCount => self.vacuum_count,
            AutovacuumCount => self.autovacuum_count,
            AnalyzeCount => self.analyze_count,
            AutoanalyzeCount => self.autoanalyze_count,
        })
    }
}

/// What one session's ended transactions did to one relation, ready to be
/// added to the shared counters (PostgreSQL's PgStat_TableCounts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableDelta {
    /// See [`TableStats::numscans`].
    pub numscans: i64,
    /// See [`TableStats::tuples_returned`].
    pub tuples_returned: i64,
    /// See [`TableStats::tuples_fetched`].
    pub tuples_fetched: i64,
    /// Rows inserted, committed or not.
    pub tuples_inserted: i64,
    /// Rows updated, committed or not.
    pub tuples_updated: i64,
    /// Rows deleted, committed or not.
    pub tuples_deleted: i64,
    /// Rows updated heap-only.
    pub tuples_hot_updated: i64,
    /// A committed TRUNCATE: the live and dead estimates start from zero.
    pub truncated: bool,
    /// Change of the live estimate.
    pub delta_live: i64,
    /// Change of the dead estimate.
    pub delta_dead: i64,
    /// Committed changes, for n_mod_since_analyze.
    pub changed: i64,
}

/// Whether a VACUUM or ANALYZE was run by hand or by autovacuum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initiator {
    /// A VACUUM or ANALYZE statement.
    Manual,
    /// The autovacuum daemon.
    Autovacuum,
}

/// The shared statistics table. See the module doc.
#[derive(Default)]
pub struct PgStat {
    tables: Mutex<HashMap<(Oid, Oid), TableStats>>,
}

impl PgStat {
    /// open -- the table kept by the last clean shutdown of `data_dir`, or
    /// an empty one after a crash (`crashed`) or on a new cluster. The file
    /// is removed either way, so a later crash cannot bring it back.
    pub fn open(data_dir: &Path, crashed: bool) -> PgStat {
        let tables = if crashed { HashMap::new() } else { persist::read(data_dir) };
        persist::discard(data_dir);
        PgStat { tables: Mutex::new(tables) }
    }

    /// save -- writes the table for the next start (at clean shutdown).
    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        let tables = self.tables.lock().clone();
        persist::write(data_dir, &tables)
    }

    /// The counters of relation `oid` in database `db`, if any were kept.
    pub fn get(&self, db: Oid, oid: Oid) -> Option<TableStats> {
        self.tables.lock().get(&(db, oid)).copied()
    }

    /// flush -- adds what a session's ended transactions did in database
    /// `db` (PostgreSQL's pgstat_relation_flush_cb), leaving `pending`
    /// empty but for the open transaction's levels.
    pub fn flush(&self, db: Oid, pending: &mut PendingStats) {
        let deltas = pending.take();
        if deltas.is_empty() {
            return;
        }
        let mut tables = self.tables.lock();
        for (oid, d) in deltas {
            apply_delta(tables.entry((db, oid)).or_default(), &d);
        }
    }

    /// report_vacuum -- VACUUM finished with table `oid`: it found `live`
    /// live rows (the new `reltuples`) and `dead` dead ones it could not
    /// remove yet (pgstat_report_vacuum).
    pub fn report_vacuum(&self, db: Oid, oid: Oid, live: i64, dead: i64, by: Initiator) {
        let mut tables = self.tables.lock();
        let entry = tables.entry((db, oid)).or_default();
        entry.live_tuples = live.max(0);
        entry.dead_tuples = dead.max(0);
        entry.ins_since_vacuum = 0;
        let now = Some(now_timestamptz());
        match by {
            Initiator::Manual => {
                entry.last_vacuum = now;
                entry.vacuum_count += 1;
            }
            Initiator::Autovacuum => {
                entry.last_autovacuum = now;
                entry.autovacuum_count += 1;
            }
        }
    }

    /// report_analyze -- ANALYZE finished with table `oid`, estimating
    /// `live` live and `dead` dead rows (pgstat_report_analyze);
    /// n_mod_since_analyze starts again from zero.
    pub fn report_analyze(&self, db: Oid, oid: Oid, live: i64, dead: i64, by: Initiator) {
        let mut tables = self.tables.lock();
        let entry = tables.entry((db, oid)).or_default();
        entry.live_tuples = live.max(0);
        entry.dead_tuples = dead.max(0);
        entry.mod_since_analyze = 0;
        let now = Some(now_timestamptz());
        match by {
            Initiator::Manual => {
                entry.last_analyze = now;
                entry.analyze_count += 1;
            }
            Initiator::Autovacuum => {
                entry.last_autoanalyze = now;
                entry.autoanalyze_count += 1;
            }
        }
    }

    /// drop_relation -- relation `oid` was dropped (at commit): its
    /// counters go.
    pub fn drop_relation(&self, db: Oid, oid: Oid) {
        self.tables.lock().remove(&(db, oid));
    }

    /// reset -- `pg_stat_reset()`: every counter of database `db` goes.
    pub fn reset(&self, db: Oid) {
        self.tables.lock().retain(|&(d, _), _| d != db);
    }

    /// reset_single -- `pg_stat_reset_single_table_counters(oid)`.
    pub fn reset_single(&self, db: Oid, oid: Oid) {
        self.drop_relation(db, oid);
    }
}

/// apply_delta -- PostgreSQL's pgstat_relation_flush_cb for one entry.
fn apply_delta(entry: &mut TableStats, d: &TableDelta) {
    entry.numscans += d.numscans;
    entry.tuples_returned += d.tuples_returned;
    entry.tuples_fetched += d.tuples_fetched;
    entry.tuples_inserted += d.tuples_inserted;
    entry.tuples_updated += d.tuples_updated;
    entry.tuples_deleted += d.tuples_deleted;
    entry.tuples_hot_updated += d.tuples_hot_updated;
    // A truncated table restarts its estimates (PostgreSQL 15 leaves
    // n_ins_since_vacuum counting on).
    if d.truncated {
        entry.live_tuples = 0;
        entry.dead_tuples = 0;
    }
    entry.live_tuples = (entry.live_tuples + d.delta_live).max(0);
    entry.dead_tuples = (entry.dead_tuples + d.delta_dead).max(0);
    entry.mod_since_analyze += d.changed;
    entry.ins_since_vacuum += d.tuples_inserted;
}
