//! VACUUM FULL and CLUSTER (PostgreSQL's `commands/cluster.c`:
//! `cluster_rel`, `rebuild_relation`, `copy_table_data`, `finish_heap_swap`).
//!
//! # The idea
//!
//! Lazy VACUUM frees space inside the table's pages but rarely shrinks the
//! file. VACUUM FULL writes a new, compact copy of the table instead and
//! swaps it in:
//!
//! ```text
//!   lock t ACCESS EXCLUSIVE
//!   horizon ← the oldest snapshot anybody holds
//!   read t's file: keep every version not DEAD for the horizon
//!   new relfilenode for t (pg_class row replaced), the survivors copied
//!       into it densely, fillfactor honoured, every page logged whole
//!   relpages/reltuples of t ← the new file's; relallvisible ← 0
//!   every index of t rebuilt into a new relfilenode of its own
//!   COMMIT: the old files are removed   ROLLBACK: the new ones are
//! ```
//!
//! CLUSTER does the same with the survivors sorted in an index's key order
//! (always a sequential scan and sort: PostgreSQL may choose an index scan
//! by cost, and says which in VERBOSE), and marks that index
//! `indisclustered` so that a later `CLUSTER t` uses it again.
//!
//! The copy itself is `sluice-access`'s `heap/rewriteheap.rs`; the file
//! swap is TRUNCATE's (`truncate::set_new_relfilenode`), so the new file is
//! transactional like any DDL: until commit everybody else reads the old
//! `pg_class` row and the old file, and a crash before commit leaves the
//! old file in place. The new file has no visibility map: nothing is
//! all-visible (index-only scans must visit the heap) until the next lazy
//! VACUUM, as in PostgreSQL.
//!
//! # Invariants
//! * Every version some snapshot may still see is copied with its xmin,
//!   xmax and update link, so a REPEATABLE READ snapshot taken before the
//!   rewrite sees the same rows after it.
//! * The old file is never changed: exactly one of the two files survives
//!   the transaction.
//!
//! # Locking
//! ACCESS EXCLUSIVE on the table from before it is read until the
//! transaction ends: no reader may be using the old file when its
//! `pg_class` row is replaced, no writer may change it while it is copied.
//!
//! # Transactions
//! VACUUM FULL rewrites each table in a transaction of its own (VACUUM's,
//! see `vacuum/mod.rs`), and so does a `CLUSTER` without a table, over the
//! tables that have a clustered index: one ACCESS EXCLUSIVE lock at a time,
//! and a failure keeps the tables rewritten before it. `CLUSTER t` is one
//! transaction, and may run inside a transaction block.
//!
//! # Not yet
//! System catalogs are not
//! rewritten: a database-wide VACUUM FULL skips them and naming one is
//! refused (0A000), because sluice reads its catalogs through fixed files.

use crate::analyze::{analyze_relation, def_boolean, update_relstats, AnalyzeOptions, Target};
use crate::reindex::rebuild_table_indexes;
use pg_query::protobuf::{ClusterStmt, RangeVar};
use pg_query::NodeEnum;
use sluice_access::heap::rewriteheap::{
    for_each_survivor, plan_rewrite, scan_survivors, write_rewrite, Survivor, SurvivorScan,
};
use sluice_access::heap::visibility::PruneHorizon;
use sluice_access::heap::HeapRelation;
use sluice_access::nbtree::{sort_entries, BuildEntry};
use sluice_common::{ForkNumber, ItemPointer, Oid};
use sluice_sql::activity::ClusterActivity;
use sluice_sql::catalog::index::IndexDesc;
use sluice_sql::catalog::namespace::missing_relation;
use sluice_sql::catalog::relation::{self, oid_of, RelationDesc, RelationId};
use sluice_sql::catalog::rows::deform_row;
use sluice_sql::catalog::scan;
use sluice_sql::catalog::schema::{PG_CATALOG_NAMESPACE, PG_INDEX};
use sluice_sql::catalog::statistic::{latest_view, namespace_names};
use sluice_sql::commands::tablecmds::cluster::{
    check_clusterable, current_table, mark_index_clustered, named_index, INDISCLUSTERED,
};
use sluice_sql::commands::tablecmds::lock_relation;
use sluice_sql::commands::truncate::set_new_relfilenode;
use sluice_sql::error::position;
use sluice_sql::error::{Result, SqlError};
use sluice_sql::executor::context::{BackendContext, Instance};
use sluice_sql::executor::lmgr::lock_relation_with;
use sluice_sql::sink::QuerySink;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;
use std::collections::HashMap;
use std::sync::Arc;

/// What VACUUM passes on for FULL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FullOptions {
    /// VERBOSE: INFO messages per table.
    pub verbose: bool,
    /// ANALYZE afterwards.
    pub analyze: bool,
    /// SKIP_LOCKED.
    pub skip_locked: bool,
}

/// vacuum_full -- VACUUM FULL of each of `targets` (PostgreSQL's vacuum_rel
/// handing a table to cluster_rel without an index), then ANALYZE if asked.
pub(crate) fn vacuum_full(
    cx: &mut dyn BackendContext,
    targets: &[Target],
    options: FullOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    for target in targets {
        cx.restart_transaction()?;
        let Some(rel) = lock_table(cx, target, options.skip_locked, sink)? else {
            continue;
        };
        rewrite_table(cx, &rel, None, options.verbose, sink)?;
        let mut parts = cx.parts()?;
        parts.txn.increment_command();
        if options.analyze {
            let analyze = AnalyzeOptions {
                verbose: options.verbose,
                skip_locked: options.skip_locked,
                in_vacuum: true,
            };
            let named = target.named.as_deref();
            analyze_relation(&mut parts, target.oid, named, &target.columns, &analyze, sink)?;
            parts.txn.increment_command();
        }
    }
    Ok(())
}

/// lock_table -- locks `target` ACCESS EXCLUSIVE and reads it as it is now;
/// `None` if it is to be skipped: gone (dropped meanwhile), locked with
/// SKIP_LOCKED, not a table, or an unnamed catalog.
fn lock_table(
    cx: &mut dyn BackendContext,
    target: &Target,
    skip_locked: bool,
    sink: &mut dyn QuerySink,
) -> Result<Option<RelationDesc>> {
    let named = target.named.as_deref();
    let mut parts = cx.parts()?;
    let mode = LockMode::AccessExclusive;
    match lock_relation_with(&mut parts, target.oid, mode, skip_locked, named) {
        Ok(()) => {}
        Err(e) if skip_locked && e.code == "55P03" => {
            if let Some(name) = named {
                let message = format!("skipping vacuum of \"{name}\" --- lock not available");
                sink.warning(&SqlError::new("55P03", message))?;
            }
            return Ok(None);
        }
        Err(e) => return Err(e),
    }
    let ctx = latest_view(parts.txn, parts.engine.txns());
    let Some(rel) = relation::by_oid(parts.engine, parts.env.database, &ctx, target.oid)? else {
        return Ok(None);
    };
    if !rel.kind.has_heap() {
        let message = format!(
            "skipping \"{}\" --- cannot vacuum non-tables or special system tables",
            rel.name
        );
        sink.warning(&SqlError::new("01000", message))?;
        return Ok(None);
    }
    if rel.namespace == PG_CATALOG_NAMESPACE {
        return match named {
            Some(_) => Err(SqlError::unsupported(format!(
                "VACUUM FULL of system catalog \"{}\" is not supported yet",
                rel.name
            ))),
            None => Ok(None),
        };
    }
    Ok(Some(rel))
}

/// rewrite_table -- copies the locked table `rel` into a new relfilenode,
/// records its size and rebuilds its indexes (rebuild_relation and
/// finish_heap_swap).
fn rewrite_table(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    order: Option<&IndexDesc>,
    verbose: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let mut progress = Progress::start(cx, rel, order);
    let full_name = qualified_name(cx, rel)?;
    if verbose {
        let message = match order {
            None => format!("vacuuming \"{full_name}\""),
            Some(_) => format!("clustering \"{full_name}\" using sequential scan and sort"),
        };
        sink.info(&SqlError::new("00000", message))?;
    }
    let mut found = find_survivors(cx, rel, &mut progress)?;
    if let Some(index) = order {
        progress.update(|c| c.phase = "sorting tuples");
        sort_survivors(cx, rel, index, &mut found.survivors)?;
    }
    let pages = write_new_file(cx, rel, &found, &mut progress)?;
    if verbose {
        let message = format!(
            "\"{full_name}\": found {} removable, {} nonremovable row versions in {} pages",
            found.removable,
            found.survivors.len(),
            found.old_pages
        );
        let detail = format!("{} dead row versions cannot be removed yet.", found.recently_dead);
        sink.info(&SqlError::new("00000", message).with_detail(detail))?;
    }
    progress.update(|c| c.phase = "swapping relation files");
    let mut parts = cx.parts()?;
    update_relstats(&mut parts, rel.oid, pages, found.survivors.len() as f64, Some(0))?;
    parts.txn.increment_command();
    progress.update(|c| c.phase = "rebuilding index");
    rebuild_table_indexes(cx, rel.oid, &mut || progress.update(|c| c.index_rebuild_count += 1))?;
    progress.update(|c| c.phase = "performing final cleanup");
    Ok(())
}

/// find_survivors -- reads `rel`'s file under the current horizon.
fn find_survivors(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    progress: &mut Progress,
) -> Result<SurvivorScan> {
    progress.update(|c| c.phase = "seq scanning heap");
    let parts = cx.parts()?;
    let engine = parts.engine.clone();
    let horizon = PruneHorizon::new(engine.txns(), parts.txn.snapshot());
    let interrupts = parts.env.interrupts.clone();
    let interrupted = move || interrupts().is_err();
    let mut report = |scanned, total, tuples| {
        progress.update(|c| {
            (c.heap_blks_scanned, c.heap_blks_total) = (u64::from(scanned), u64::from(total));
            c.heap_tuples_scanned = tuples;
        })
    };
    scan_survivors(&engine, &rel.heap(), &horizon, &interrupted, &mut report)
        .map_err(|e| interrupted_reason(cx, e.into()))
}

/// write_new_file -- gives `rel` a new relfilenode holding the survivors
/// in their order; returns its size in pages.
fn write_new_file(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    found: &SurvivorScan,
    progress: &mut Progress,
) -> Result<u32> {
    progress.update(|c| c.phase = "writing new heap");
    let template = rel.heap();
    let plan = plan_rewrite(&template, &found.survivors)?;
    let id = RelationId {
        oid: rel.oid,
        name: rel.name.clone(),
        namespace: rel.namespace,
        locator: rel.locator,
        kind: rel.kind,
    };
    let interrupts = cx.parts()?.env.interrupts.clone();
    let interrupted = move || interrupts().is_err();
    let mut written = |n| progress.update(|c| c.heap_tuples_written = n);
    let result = set_new_relfilenode(cx, &id, |engine, locator| {
        engine.create_relation_fork(locator, ForkNumber::Main)?;
        let new_rel = HeapRelation { locator, ..rel.heap() };
        let old = rel.heap();
        write_rewrite(engine, &old, &new_rel, &found.survivors, &plan, &interrupted, &mut written)?;
        Ok(())
    });
    result.map_err(|e| interrupted_reason(cx, e))?;
    cx.xact()?.keep_until_unseen(rel.locator);
    Ok(plan.pages)
}

/// A session's row in `pg_stat_progress_cluster`, withdrawn when dropped
/// (however the rewrite ends).
struct Progress {
    instance: Arc<Instance>,
    pid: u32,
    state: ClusterActivity,
}

impl Progress {
    /// Publishes the start of a VACUUM FULL (`order` is `None`) or CLUSTER
    /// of `rel`.
    fn start(cx: &dyn BackendContext, rel: &RelationDesc, order: Option<&IndexDesc>) -> Progress {
        let state = ClusterActivity {
            relid: rel.oid,
            command: if order.is_some() { "CLUSTER" } else { "VACUUM FULL" },
            phase: "initializing",
            cluster_index_relid: order.map_or(0, |i| i.oid),
            ..ClusterActivity::default()
        };
        let progress = Progress { instance: cx.instance(), pid: cx.pid(), state };
        progress.instance.activity.set_cluster_progress(progress.pid, Some(state));
        progress
    }

    /// Changes the published row.
    fn update(&mut self, change: impl FnOnce(&mut ClusterActivity)) {
        change(&mut self.state);
        self.instance.activity.set_cluster_progress(self.pid, Some(self.state));
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.instance.activity.set_cluster_progress(self.pid, None);
    }
}

/// A rewrite that stopped while an interrupt is pending (cancel,
/// statement_timeout, termination) reports the interrupt; other errors pass
/// through.
fn interrupted_reason(cx: &mut dyn BackendContext, error: SqlError) -> SqlError {
    let reason = cx.parts().ok().and_then(|parts| (parts.env.interrupts)().err());
    reason.unwrap_or(error)
}

/// `schema.table`, as cluster.c's messages name a table.
fn qualified_name(cx: &mut dyn BackendContext, rel: &RelationDesc) -> Result<String> {
    let parts = cx.parts()?;
    let ctx = latest_view(parts.txn, parts.engine.txns());
    let names = namespace_names(parts.engine, parts.env.database, &ctx)?;
    let schema = names.get(&rel.namespace).cloned().unwrap_or_default();
    Ok(format!("{schema}.{}", rel.name))
}

/// sort_survivors -- puts `survivors` in `index`'s key order (CLUSTER's
/// sequential scan and sort; NULLs where the index puts them).
fn sort_survivors(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    index: &IndexDesc,
    survivors: &mut Vec<Survivor>,
) -> Result<()> {
    let engine = cx.engine().clone();
    let (desc, types, key_types) = (rel.tuple_desc(), rel.types(), index.key_types(rel));
    let mut entries = Vec::with_capacity(survivors.len());
    for_each_survivor(&engine, &rel.heap(), survivors, |survivor, tuple| -> Result<()> {
        let row = deform_row(&desc, &types, tuple)?;
        let values = index.key_values(&key_types, &row);
        entries.push(BuildEntry { values, heap_tid: survivor.old, live: true });
        Ok(())
    })?;
    sort_entries(&index.btree(rel), &mut entries);
    let by_tid: HashMap<ItemPointer, Survivor> = survivors.iter().map(|s| (s.old, *s)).collect();
    *survivors = entries.iter().filter_map(|e| by_tid.get(&e.heap_tid).copied()).collect();
    Ok(())
}

/// cluster -- `CLUSTER [VERBOSE] [table [USING index]]` (PostgreSQL's
/// cluster()): rewrites the table in the order of the index named, or of
/// the one marked `indisclustered` by an earlier CLUSTER; without a table,
/// every table that has such an index.
pub fn cluster(
    cx: &mut dyn BackendContext,
    stmt: &ClusterStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let verbose = parse_options(stmt)?;
    let Some(rv) = stmt.relation.as_ref() else {
        cx.prevent_transaction_block("CLUSTER")?;
        for (table, index) in clustered_tables(cx)? {
            // One transaction per table, as PostgreSQL's cluster_multiple_rels.
            cx.restart_transaction()?;
            lock_relation(cx, table, LockMode::AccessExclusive)?;
            let Some((rel, indexes)) = current_table(cx, table)? else { continue };
            if let Some(index) = indexes.into_iter().find(|i| i.oid == index) {
                cluster_table(cx, &rel, &index, verbose, sink)?;
            }
        }
        return sink.complete("CLUSTER");
    };
    let table = find_table(cx, rv)?;
    lock_relation(cx, table.oid, LockMode::AccessExclusive)?;
    let Some((rel, indexes)) = current_table(cx, table.oid)? else {
        return Err(missing_relation(&rv.relname));
    };
    let index = if stmt.indexname.is_empty() {
        let clustered = clustered_index(cx, rel.oid)?;
        indexes.into_iter().find(|i| Some(i.oid) == clustered).ok_or_else(|| {
            SqlError::new(
                "42704",
                format!("there is no previously clustered index for table \"{}\"", rel.name),
            )
        })?
    } else {
        named_index(cx, &rel, indexes, &stmt.indexname)?
    };
    check_clusterable(&index)?;
    cluster_table(cx, &rel, &index, verbose, sink)?;
    sink.complete("CLUSTER")
}

/// CLUSTER's options: VERBOSE.
fn parse_options(stmt: &ClusterStmt) -> Result<bool> {
    let mut verbose = false;
    for node in &stmt.params {
        let Some(NodeEnum::DefElem(def)) = node.node.as_ref() else { continue };
        match def.defname.as_str() {
            "verbose" => verbose = def_boolean(def)?,
            other => {
                return Err(SqlError::syntax(format!("unrecognized CLUSTER option \"{other}\""))
                    .at(position(def.location)))
            }
        }
    }
    Ok(verbose)
}

/// The table `rv` names: 42P01 if none, 42809 if not a table, 0A000 for a
/// system catalog.
fn find_table(cx: &mut dyn BackendContext, rv: &RangeVar) -> Result<RelationId> {
    let rel = cx.find_named(rv)?;
    if !rel.kind.has_heap() {
        return Err(SqlError::new(
            "42809",
            format!("\"{}\" is not a table or materialized view", rel.name),
        ));
    }
    if rel.namespace == PG_CATALOG_NAMESPACE {
        return Err(SqlError::unsupported(format!(
            "CLUSTER of system catalog \"{}\" is not supported yet",
            rel.name
        )));
    }
    Ok(rel)
}

/// cluster_table -- marks `index` as `rel`'s clustered index and rewrites
/// `rel` in its order (cluster_rel).
fn cluster_table(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    index: &IndexDesc,
    verbose: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    mark_index_clustered(cx, rel.oid, Some(index.oid))?;
    rewrite_table(cx, rel, Some(index), verbose, sink)?;
    cx.txn()?.increment_command();
    Ok(())
}

/// The index of `table` marked `indisclustered`, if any.
fn clustered_index(cx: &mut dyn BackendContext, table: Oid) -> Result<Option<Oid>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = scan(&engine, db, &PG_INDEX, cx.txn()?, |r| {
        oid_of(&r[1]) == table && r[INDISCLUSTERED] == Datum::Bool(true)
    })?;
    Ok(rows.first().map(|(_, r)| oid_of(&r[0])))
}

/// Every (table, index) pair with the index marked `indisclustered`.
fn clustered_tables(cx: &mut dyn BackendContext) -> Result<Vec<(Oid, Oid)>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = scan(&engine, db, &PG_INDEX, cx.txn()?, |r| r[INDISCLUSTERED] == Datum::Bool(true))?;
    Ok(rows.iter().map(|(_, r)| (oid_of(&r[1]), oid_of(&r[0]))).collect())
}
