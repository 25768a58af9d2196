//! VACUUM (PostgreSQL's `commands/vacuum.c`, with lazy vacuum itself in
//! `sluice-access`'s `heap/vacuumlazy.rs`).
//!
//! # The idea
//!
//! `VACUUM [ (option, ...) ] [table [(column, ...)], ...]` reclaims the space
//! of row versions no snapshot can see any more, in the heap and in every
//! B-tree index of each table, and records the table's size in `pg_class`;
//! with ANALYZE it then collects statistics (`analyze/`). Without a
//! table list it processes every table of the database, catalogs included.
//!
//! ```text
//!   VACUUM t ──► lock t SHARE UPDATE EXCLUSIVE (SKIP_LOCKED: skip if taken)
//!            ──► horizon: the oldest snapshot anybody holds
//!            ──► heap_vacuum_rel: prune, bulk-delete index entries, free
//!                line pointers, truncate the empty tail (ACCESS EXCLUSIVE
//!                only if it can be had without queueing, asked for
//!                every 50 ms for up to 5 s, released right after)
//!            ──► pg_class: relpages, reltuples of the table and of each
//!                vacuumed index
//!            ──► ANALYZE t, if asked
//! ```
//!
//! While a table is vacuumed its progress is published in the activity table
//! (`pg_stat_progress_vacuum`: phase, pages scanned and vacuumed, index
//! rounds, dead TIDs remembered) and withdrawn when it is done.
//!
//! # Transactions
//!
//! VACUUM refuses to run inside a transaction block (25001), as in
//! PostgreSQL, because it must not hold back its own horizon for longer than
//! the statement. As in PostgreSQL's `vacuum()`, the list of tables is made
//! in the statement's transaction, which then commits, and each table is
//! vacuumed (and analyzed) in a transaction of its own: a database-wide
//! VACUUM holds one table's SHARE UPDATE EXCLUSIVE lock at a time, and each
//! table is cleaned with the horizon of its own start, so the dead rows of
//! the tables before it count as gone. A failure ends the statement but
//! keeps what the tables before it got. `relpages` and `reltuples` are
//! written as new `pg_class` row versions in the table's transaction (as
//! ANALYZE writes them here), where PostgreSQL overwrites them in place.
//!
//! # Options
//!
//! VERBOSE, ANALYZE, INDEX_CLEANUP (auto/on/off), TRUNCATE and SKIP_LOCKED
//! act as in PostgreSQL 15. DISABLE_PAGE_SKIPPING reads every page instead
//! of skipping the runs the visibility map marks all-visible; FREEZE skips
//! only all-frozen runs and marks the pages it clears all-frozen (with
//! 64-bit xids there are no xids to rewrite, only finished multis to drop,
//! `heap/vacuumlazy.rs`). PROCESS_TOAST is checked and changes nothing:
//! there is no TOAST. PARALLEL is checked and the indexes are vacuumed one
//! after the other. FULL rewrites each table instead (`cluster.rs`).

mod verbose;

use crate::analyze::{
    all_tables, analyze_relation, def_boolean, listed_tables, lock_for_maintenance,
    update_relstats, AnalyzeOptions, Target,
};
use crate::cluster::{vacuum_full, FullOptions};
use pg_query::protobuf::{DefElem, VacuumStmt};
use pg_query::NodeEnum;
use sluice_access::heap::vacuumlazy::{
    heap_vacuum_rel, max_dead_items, IndexCleanup, TruncateLock, VacuumParams, VacuumProgress,
    VacuumReport,
};
use sluice_access::heap::visibility::PruneHorizon;
use sluice_access::heap::visibilitymap;
use sluice_access::AccessError;
use sluice_common::ForkNumber;
use sluice_guc::Settings;
use sluice_sql::activity::{ActivityTable, VacuumActivity};
use sluice_sql::catalog::index::{indexes_of, IndexDesc};
use sluice_sql::catalog::relation::{self, RelationDesc};
use sluice_sql::catalog::statistic::{self, latest_view};
use sluice_sql::error::position;
use sluice_sql::error::{Result, SqlError};
use sluice_sql::executor::context::BackendContext;
use sluice_sql::executor::context::ExecParts;
use sluice_sql::sink::QuerySink;
use sluice_txn::lmgr::{LockMode, LockTag, LockWaitParams};
use sluice_txn::{ProcId, Transaction};
use std::time::{Duration, Instant};

/// The most parallel workers VACUUM accepts (MAX_PARALLEL_WORKER_LIMIT).
const MAX_PARALLEL_WORKERS: i32 = 1024;
/// How often truncation asks for its lock again ...
const TRUNCATE_LOCK_WAIT_INTERVAL: Duration = Duration::from_millis(50);
/// ... and for how long before it gives up.
const TRUNCATE_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// VACUUM's options.
#[derive(Clone, Copy, Debug)]
struct VacuumOptions {
    /// VERBOSE: report each table as INFO messages.
    verbose: bool,
    /// ANALYZE: collect statistics afterwards.
    analyze: bool,
    /// SKIP_LOCKED: skip a table whose lock is not free at once.
    skip_locked: bool,
    /// FULL: rewrite the table (`cluster.rs`).
    full: bool,
    /// PARALLEL n was given.
    parallel: bool,
    /// INDEX_CLEANUP.
    index_cleanup: IndexCleanup,
    /// TRUNCATE.
    truncate: bool,
    /// FREEZE (also `VACUUM FREEZE`).
    freeze: bool,
    /// DISABLE_PAGE_SKIPPING.
    disable_page_skipping: bool,
}

/// vacuum -- `VACUUM [(options)] [table [(columns)], ...]`: checks the
/// options and the statement's context, finds the tables, and vacuums each.
pub fn vacuum(
    cx: &mut dyn BackendContext,
    stmt: &VacuumStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let options = parse_options(stmt)?;
    let has_columns = stmt.rels.iter().any(|node| match node.node.as_ref() {
        Some(NodeEnum::VacuumRelation(vr)) => !vr.va_cols.is_empty(),
        _ => false,
    });
    if has_columns && !options.analyze {
        return Err(SqlError::new(
            "0A000",
            "ANALYZE option must be specified when a column list is provided",
        ));
    }
    cx.prevent_transaction_block("VACUUM")?;
    let targets = if stmt.rels.is_empty() { all_tables(cx)? } else { listed_tables(cx, stmt)? };
    if options.full {
        let full = FullOptions {
            verbose: options.verbose,
            analyze: options.analyze,
            skip_locked: options.skip_locked,
        };
        vacuum_full(cx, &targets, full, sink)?;
        return sink.complete("VACUUM");
    }
    let proc = cx.backend().proc();
    for target in &targets {
        // Each table in a transaction of its own, the list's included
        // (PostgreSQL's use_own_xacts): its locks go and its horizon moves
        // on as soon as it is done.
        cx.restart_transaction()?;
        let mut parts = cx.parts()?;
        vacuum_target(&mut parts, proc, target, &options, sink)?;
    }
    sink.complete("VACUUM")
}

/// parse_options -- PostgreSQL 15's VACUUM options, with its errors.
fn parse_options(stmt: &VacuumStmt) -> Result<VacuumOptions> {
    let mut options = VacuumOptions {
        verbose: false,
        analyze: false,
        skip_locked: false,
        full: false,
        parallel: false,
        index_cleanup: IndexCleanup::Auto,
        truncate: true,
        freeze: false,
        disable_page_skipping: false,
    };
    for node in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = node.node.as_ref() else { continue };
        match def.defname.as_str() {
            "verbose" => options.verbose = def_boolean(def)?,
            "analyze" => options.analyze = def_boolean(def)?,
            "skip_locked" => options.skip_locked = def_boolean(def)?,
            "full" => options.full = def_boolean(def)?,
            "truncate" => options.truncate = def_boolean(def)?,
            "index_cleanup" => options.index_cleanup = index_cleanup(def)?,
            "freeze" => options.freeze = def_boolean(def)?,
            "disable_page_skipping" => options.disable_page_skipping = def_boolean(def)?,
            "process_toast" => {
                def_boolean(def)?;
            }
            "parallel" => {
                parallel_workers(def)?;
                options.parallel = true;
            }
            other => {
                return Err(SqlError::syntax(format!("unrecognized VACUUM option \"{other}\""))
                    .at(position(def.location)))
            }
        }
    }
    if options.full && options.parallel {
        return Err(SqlError::unsupported("VACUUM FULL cannot be performed in parallel"));
    }
    Ok(options)
}

/// INDEX_CLEANUP's value: AUTO or a Boolean.
fn index_cleanup(def: &DefElem) -> Result<IndexCleanup> {
    let word = def.arg.as_deref().and_then(sluice_sql::parser::node_str);
    if word.is_some_and(|w| w.eq_ignore_ascii_case("auto")) {
        return Ok(IndexCleanup::Auto);
    }
    Ok(if def_boolean(def)? { IndexCleanup::On } else { IndexCleanup::Off })
}

/// PARALLEL's worker count, 0 ..= 1024 (PostgreSQL's messages).
fn parallel_workers(def: &DefElem) -> Result<i32> {
    let Some(arg) = def.arg.as_deref() else {
        return Err(SqlError::syntax("parallel option requires a value between 0 and 1024")
            .at(position(def.location)));
    };
    let n = match arg.node.as_ref() {
        Some(NodeEnum::Integer(i)) => i.ival,
        _ => return Err(SqlError::syntax("parallel requires an integer value")),
    };
    if !(0..=MAX_PARALLEL_WORKERS).contains(&n) {
        return Err(SqlError::syntax("parallel workers for vacuum must be between 0 and 1024")
            .at(position(def.location)));
    }
    Ok(n)
}

/// vacuum_target -- VACUUM (and ANALYZE, if asked) of one listed or found
/// table (PostgreSQL's vacuum_rel).
fn vacuum_target(
    parts: &mut ExecParts,
    proc: ProcId,
    target: &Target,
    options: &VacuumOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let named = target.named.as_deref();
    if !lock_for_maintenance(parts, target.oid, named, options.skip_locked, "vacuum", sink)? {
        return Ok(());
    }
    // Look again now that it is locked: a DROP may have committed meanwhile.
    let ctx = latest_view(parts.txn, parts.engine.txns());
    let Some(rel) = relation::by_oid(parts.engine, parts.env.database, &ctx, target.oid)? else {
        return Ok(());
    };
    if !rel.kind.has_heap() {
        let message = format!(
            "skipping \"{}\" --- cannot vacuum non-tables or special system tables",
            rel.name
        );
        return sink.warning(&SqlError::new("01000", message));
    }
    vacuum_relation(parts, proc, &rel, options, sink)?;
    if options.analyze {
        // ANALYZE rewrites the pg_class row VACUUM just wrote.
        parts.txn.increment_command();
        let analyze = AnalyzeOptions {
            verbose: options.verbose,
            skip_locked: options.skip_locked,
            in_vacuum: true,
        };
        analyze_relation(parts, target.oid, named, &target.columns, &analyze, sink)?;
    }
    Ok(())
}

/// vacuum_relation -- lazy VACUUM of the locked table `rel` and its indexes,
/// then its size in `pg_class` (heap_vacuum_rel's caller half).
fn vacuum_relation(
    parts: &mut ExecParts,
    proc: ProcId,
    rel: &RelationDesc,
    options: &VacuumOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (engine, db) = (parts.engine, parts.env.database);
    let ctx = latest_view(parts.txn, engine.txns());
    // An index CREATE INDEX CONCURRENTLY has not made ready yet (or left
    // behind on failure) may have no pages at all: nothing to vacuum, as
    // PostgreSQL's vac_open_indexes decides.
    let indexes: Vec<_> =
        indexes_of(engine, db, &ctx, rel.oid)?.into_iter().filter(|i| i.ready).collect();
    let schema = statistic::namespace_names(engine, db, &ctx)?
        .get(&rel.namespace)
        .cloned()
        .unwrap_or_default();
    let full_name = format!("{}.{schema}.{}", parts.env.database_name, rel.name);
    if options.verbose {
        // FREEZE makes PostgreSQL's VACUUM aggressive (every page scanned
        // and frozen), which its report says; sluice's does the same.
        let how = if options.freeze { "aggressively vacuuming" } else { "vacuuming" };
        sink.info(&SqlError::new("00000", format!("{how} \"{full_name}\"")))?;
    }
    let report = run_lazy_vacuum(parts, proc, rel, &indexes, options)?;
    if options.verbose {
        if report.truncate_lock_missed {
            let message =
                format!("\"{}\": stopping truncate due to conflicting lock request", rel.name);
            sink.info(&SqlError::new("00000", message))?;
        }
        if report.rel_pages < report.orig_rel_pages {
            let message = format!(
                "table \"{}\": truncated {} to {} pages",
                rel.name, report.orig_rel_pages, report.rel_pages
            );
            sink.info(&SqlError::new("00000", message))?;
        }
        let next_xid = engine.txns().next_xid();
        let live = estimate_reltuples(rel, &report);
        let message = verbose::finished_message(&full_name, &report, live, &indexes, next_xid);
        sink.info(&SqlError::new("00000", message))?;
    }
    let reltuples = estimate_reltuples(rel, &report);
    let all_visible = visibilitymap::count(engine.pool(), rel.locator)?.0;
    update_relstats(parts, rel.oid, report.rel_pages, reltuples, Some(all_visible))?;
    // What VACUUM found replaces the estimates (pgstat_report_vacuum).
    let (live, dead) = (reltuples as i64, report.recently_dead_tuples as i64);
    let by = sluice_access::pgstat::Initiator::Manual;
    engine.stats().report_vacuum(db, rel.oid, live, dead, by);
    for (index, stats) in indexes.iter().zip(&report.index_stats) {
        if let Some(stats) = stats {
            update_relstats(
                parts,
                index.oid,
                stats.num_pages,
                stats.num_index_tuples as f64,
                None,
            )?;
        }
    }
    Ok(())
}

/// estimate_reltuples -- the table's row count after a VACUUM that may have
/// skipped all-visible pages: the count of the pages read, plus the pages
/// not read at the density `pg_class` had (PostgreSQL's
/// vac_estimate_reltuples).
fn estimate_reltuples(rel: &RelationDesc, report: &VacuumReport) -> f64 {
    let (scanned, total) = (report.scanned_pages as f64, report.orig_rel_pages as f64);
    let counted = report.live_tuples as f64;
    if scanned >= total {
        return counted;
    }
    // A few pages (under 2%, or just one) read again and again by VACUUMs
    // of an unchanged table would distort the density: keep the old count
    // (PostgreSQL 15's rule).
    if (rel.pages as f64 == total && scanned < total * 0.02) || scanned <= 1.0 {
        return rel.tuples as f64;
    }
    if rel.tuples < 0.0 || rel.pages <= 0 {
        return (counted / scanned * total).round();
    }
    let density = rel.tuples as f64 / rel.pages as f64;
    (density * (total - scanned) + counted).round()
}

/// run_lazy_vacuum -- the horizon, the parameters and the truncation lock
/// for `heap_vacuum_rel`, and its errors in SQL terms.
fn run_lazy_vacuum(
    parts: &mut ExecParts,
    proc: ProcId,
    rel: &RelationDesc,
    indexes: &[IndexDesc],
    options: &VacuumOptions,
) -> Result<VacuumReport> {
    let engine = parts.engine;
    let btrees: Vec<_> = indexes.iter().map(|i| i.btree(rel)).collect();
    let rel_pages = engine.pool().nblocks(rel.locator, ForkNumber::Main)?;
    let work_mem = parts.env.settings.get_int("maintenance_work_mem").max(1024) as usize * 1024;
    let interrupts = parts.env.interrupts.clone();
    let interrupted = move || interrupts().is_err();
    let published = PublishedProgress { activity: parts.env.activity, pid: parts.env.pid };
    let progress = |progress: &VacuumProgress| {
        let vacuum = VacuumActivity { relid: rel.oid, progress: *progress };
        published.activity.set_vacuum_progress(published.pid, Some(vacuum));
    };
    let params = VacuumParams {
        index_cleanup: options.index_cleanup,
        truncate: options.truncate,
        max_dead_items: max_dead_items(work_mem, rel_pages),
        freeze: options.freeze,
        disable_page_skipping: options.disable_page_skipping,
        interrupted: &interrupted,
        progress: &progress,
    };
    let horizon = PruneHorizon::new(engine.txns(), parts.txn.snapshot());
    let tag = LockTag::Relation { database: parts.env.database, relation: rel.oid };
    let mut lock = ConditionalExclusive { txn: parts.txn, tag, proc, interrupted: &interrupted };
    heap_vacuum_rel(engine, &rel.heap(), &btrees, &horizon, &params, &mut lock).map_err(|e| {
        match (e, (parts.env.interrupts)()) {
            // Report why: cancel, statement_timeout, termination.
            (AccessError::Interrupted, Err(reason)) => reason,
            (e, _) => SqlError::from(e),
        }
    })
}

/// A session's row in `pg_stat_progress_vacuum`, withdrawn when dropped
/// (however the table's VACUUM ends).
struct PublishedProgress<'a> {
    activity: &'a ActivityTable,
    pid: u32,
}

impl Drop for PublishedProgress<'_> {
    fn drop(&mut self) {
        self.activity.set_vacuum_progress(self.pid, None);
    }
}

/// Truncation's ACCESS EXCLUSIVE lock on one table, taken only if free.
struct ConditionalExclusive<'t> {
    txn: &'t Transaction,
    tag: LockTag,
    proc: ProcId,
    /// Cancel or timeout ends the retries.
    interrupted: &'t dyn Fn() -> bool,
}

impl TruncateLock for ConditionalExclusive<'_> {
    /// Asks without queueing every 50 ms for up to 5 s, as PostgreSQL's
    /// lazy_truncate_heap does (VACUUM_TRUNCATE_LOCK_WAIT_INTERVAL and
    /// _TIMEOUT): a queued request would block every later reader.
    fn try_acquire(&mut self) -> bool {
        let never = || false;
        let params = LockWaitParams { nowait: true, ..LockWaitParams::new(&never) };
        let deadline = Instant::now() + TRUNCATE_LOCK_TIMEOUT;
        loop {
            if self.txn.lock(self.tag, LockMode::AccessExclusive, &params).is_ok() {
                return true;
            }
            if Instant::now() >= deadline || (self.interrupted)() {
                return false;
            }
            std::thread::sleep(TRUNCATE_LOCK_WAIT_INTERVAL);
        }
    }

    fn release(&mut self) {
        self.txn.manager().lock_manager().release(self.proc, self.tag, LockMode::AccessExclusive);
    }
}
