//! TRUNCATE (PostgreSQL's `ExecuteTruncate` and `ExecuteTruncateGuts` in
//! `commands/tablecmds.c`, and `ResetSequence` in `commands/sequence.c`).
//!
//! ```text
//!   TRUNCATE [TABLE] [ONLY] t1 [, t2 ...] [RESTART IDENTITY | CONTINUE IDENTITY]
//!                                          [CASCADE | RESTRICT]
//! ```
//!
//! # The idea: a new relfilenode, not a delete
//!
//! Deleting every row would leave every version behind for VACUUM and cost a
//! WAL record per row. TRUNCATE instead points the table's `pg_class` row at
//! a brand-new, empty file (a new *relfilenode*) and keeps the old file:
//!
//! ```text
//!   before:      pg_class(t).relfilenode = 16400  ── base/5/16400 (rows)
//!   TRUNCATE t:  pg_class(t).relfilenode = 16411  ── base/5/16411 (empty)
//!                old row version (16400) deleted by this transaction
//!   COMMIT:      base/5/16400 unlinked            (Session::delete_on_commit)
//!   ROLLBACK:    base/5/16411 unlinked, the old pg_class version is live again
//!                                                 (Session::delete_on_abort)
//! ```
//!
//! So TRUNCATE is transactional like any DDL: until commit other sessions
//! read the old `pg_class` version and so the old file, a rollback brings the
//! rows back, and nothing is rewritten. The new `pg_class` row version is
//! this transaction's, which is what lets `COPY ... WITH (FREEZE)` later in
//! the same transaction know the table was truncated here (see `copy.rs`).
//! Owned sequences are reset the same way (RESTART IDENTITY, PostgreSQL's
//! ResetSequence): a new file holding the START value, so a rollback also
//! undoes the restart. Each index gets a new, empty file the same way
//! ([`reset_indexes`]).
//!
//! # Invariants
//! * A table's file is never changed in place: the old file stays intact
//!   until the transaction's outcome is known, and exactly one of the two
//!   files survives it.
//! * Each table is truncated once per statement (a name listed twice counts
//!   once, as in PostgreSQL), and its `pg_class` row is replaced by a
//!   version this transaction wrote.
//!
//! # Locking
//! Every table is locked ACCESS EXCLUSIVE, in the order the statement names
//! them, before anything changes: nobody else may be reading the old file
//! when its row version is replaced. Owned sequences are locked ACCESS
//! EXCLUSIVE before they are reset. A name is looked up before its lock is
//! granted, so a TRUNCATE or DROP may have committed while we waited: then
//! the statement looks again under a fresh snapshot (READ COMMITTED) or
//! fails with 40001 (REPEATABLE READ), as every statement that opens a
//! table does (`optimizer::select::catalog_moved_on`). That is also what
//! keeps an INSERT queued behind a TRUNCATE from writing into the old file:
//! once the TRUNCATE commits, the INSERT finds the new one.
//!
//! A table that other tables' foreign keys reference can be truncated only
//! together with them: RESTRICT (the default) fails with PostgreSQL's 0A000
//! unless they are named too, CASCADE adds them (heap_truncate_find_FKs,
//! heap_truncate_check_FKs).
//!
//! # Not yet
//! sluice has no inheritance, partitions or triggers, so `ONLY` changes
//! nothing and there are no TRUNCATE triggers to fire.

use super::sequence::owned_sequences;
use super::tablecmds::lock_relation;
use crate::catalog::index::indexes_of;
use crate::catalog::relation::{self, oid_of, RelationId};
use crate::catalog::schema::{RelKind, PG_CATALOG_NAMESPACE, PG_CLASS};
use crate::catalog::{replace, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::optimizer::select::catalog_moved_on;
use crate::sink::QuerySink;
use pg_query::protobuf::{RangeVar, TruncateStmt};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::nbtree::btree_build;
use sluice_access::sequence::{self as seqstore, SeqData};
use sluice_access::Engine;
use sluice_common::{ForkNumber, RelFileLocator};
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// `pg_class` columns a new relfilenode resets (PostgreSQL 15's
/// RelationSetNewRelfilenode): relfilenode, relpages, reltuples, relallvisible.
const RELFILENODE: usize = 6;
const RELPAGES: usize = 8;
const RELTUPLES: usize = 9;
const RELALLVISIBLE: usize = 10;

/// truncate -- TRUNCATE: locks and checks every named table, gives each a new
/// empty relfilenode (and empty indexes), then restarts owned sequences if
/// RESTART IDENTITY was given.
pub fn truncate(
    cx: &mut dyn BackendContext,
    stmt: &TruncateStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let tables = open_tables(cx, stmt, sink)?;
    let sequences = if stmt.restart_seqs { lock_owned_sequences(cx, &tables)? } else { vec![] };
    for table in &tables {
        set_new_relfilenode(cx, table, |engine, locator| {
            Ok(engine.create_relation_fork(locator, ForkNumber::Main)?)
        })?;
        reset_indexes(cx, table)?;
        // Its counts so far are void if the level commits.
        let depth = cx.xact()?.depth();
        cx.state_mut().stats.count_truncate(table.oid, depth);
    }
    for seq in &sequences {
        reset_sequence(cx, seq)?;
    }
    sink.complete("TRUNCATE TABLE")
}

/// open_tables -- the tables `stmt` names, each checked (PostgreSQL's
/// truncate_check_rel) and locked ACCESS EXCLUSIVE in the order given; a
/// table named twice comes once.
fn open_tables(
    cx: &mut dyn BackendContext,
    stmt: &TruncateStmt,
    sink: &mut dyn QuerySink,
) -> Result<Vec<RelationId>> {
    let mut tables: Vec<RelationId> = Vec::new();
    for node in &stmt.relations {
        let Some(NodeEnum::RangeVar(rv)) = node.node.as_ref() else { continue };
        let table = lock_table(cx, rv)?;
        if tables.iter().all(|t| t.oid != table.oid) {
            tables.push(table);
        }
    }
    let cascade = stmt.behavior == pg_query::protobuf::DropBehavior::DropCascade as i32;
    add_referencing_tables(cx, &mut tables, cascade, sink)?;
    Ok(tables)
}

/// add_referencing_tables -- the tables whose foreign keys reference one
/// of `tables`: with CASCADE they are locked and added (each with
/// PostgreSQL's NOTICE, and in turn their referencing tables); without,
/// 0A000 unless they are in the list already.
fn add_referencing_tables(
    cx: &mut dyn BackendContext,
    tables: &mut Vec<RelationId>,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let mut i = 0;
    while i < tables.len() {
        let desc = crate::commands::tablecmds::describe(cx, tables[i].oid)?;
        for key in &desc.foreign_keys.incoming {
            if tables.iter().any(|t| t.oid == key.table) {
                continue;
            }
            let engine = cx.engine().clone();
            let db = cx.database();
            let Some(referencing) = relation::find_by_oid(&engine, db, cx.txn()?, key.table)?
            else {
                continue;
            };
            if !cascade {
                return Err(SqlError::unsupported(
                    "cannot truncate a table referenced in a foreign key constraint",
                )
                .with_detail(format!(
                    "Table \"{}\" references \"{}\".",
                    referencing.name, desc.name
                ))
                .with_hint(format!(
                    "Truncate table \"{}\" at the same time, or use TRUNCATE ... CASCADE.",
                    referencing.name
                )));
            }
            lock_relation(cx, referencing.oid, LockMode::AccessExclusive)?;
            let notice = format!("truncate cascades to table \"{}\"", referencing.name);
            sink.notice(&SqlError::new("00000", notice))?;
            tables.push(referencing);
        }
        i += 1;
    }
    Ok(())
}

/// lock_table -- finds, checks and locks the table `rv` names. The name is
/// looked up before the lock is granted; if a transaction that committed
/// meanwhile changed the table's `pg_class` row (another TRUNCATE, a DROP),
/// the lookup is made again under a fresh snapshot (READ COMMITTED), or the
/// statement fails with 40001 (REPEATABLE READ): see `catalog_moved_on`.
fn lock_table(cx: &mut dyn BackendContext, rv: &RangeVar) -> Result<RelationId> {
    loop {
        let table = find_table(cx, rv)?;
        lock_relation(cx, table.oid, LockMode::AccessExclusive)?;
        if !catalog_moved_on(&mut cx.parts()?, table.oid, true)? {
            return Ok(table);
        }
    }
}

/// find_table -- the relation `rv` names, which must be an ordinary table
/// outside `pg_catalog`: 42P01 if missing, 42809 if not a table, 42501 for
/// a system catalog. Like PostgreSQL's utility commands, the errors carry
/// no cursor position.
fn find_table(cx: &mut dyn BackendContext, rv: &RangeVar) -> Result<RelationId> {
    let without_position = |mut e: SqlError| {
        e.position = None;
        e
    };
    let rel = cx.find_named(rv).map_err(without_position)?;
    if rel.kind != RelKind::Table {
        return Err(SqlError::new("42809", format!("\"{}\" is not a table", rel.name)));
    }
    if rel.namespace == PG_CATALOG_NAMESPACE {
        return Err(SqlError::new(
            "42501",
            format!("permission denied: \"{}\" is a system catalog", rel.name),
        ));
    }
    Ok(rel)
}

/// lock_owned_sequences -- the sequences the tables' columns own (serial
/// columns), locked ACCESS EXCLUSIVE for RESTART IDENTITY.
fn lock_owned_sequences(
    cx: &mut dyn BackendContext,
    tables: &[RelationId],
) -> Result<Vec<RelationId>> {
    let mut sequences: Vec<RelationId> = Vec::new();
    for table in tables {
        for seq in owned_sequences(cx, table.oid)? {
            if sequences.iter().all(|s| s.oid != seq.oid) {
                lock_relation(cx, seq.oid, LockMode::AccessExclusive)?;
                sequences.push(seq);
            }
        }
    }
    Ok(sequences)
}

/// set_new_relfilenode -- gives `rel` a new relfilenode (PostgreSQL's
/// RelationSetNewRelfilenode): `create` makes its file, which goes away if
/// the transaction aborts; the old file goes once it commits; the
/// `pg_class` row is replaced by one naming the new file, with the size
/// statistics of an empty relation. The caller holds ACCESS EXCLUSIVE on
/// `rel`. Returns the new file's locator.
pub fn set_new_relfilenode(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    create: impl FnOnce(&Engine, RelFileLocator) -> Result<()>,
) -> Result<RelFileLocator> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let filenode = engine.new_oid()?;
    let locator = RelFileLocator { rel_number: filenode, ..rel.locator };
    create(&engine, locator)?;
    cx.xact()?.delete_on_abort(locator);
    cx.xact()?.delete_on_commit(rel.locator);
    let txn = cx.txn()?;
    let oid = rel.oid;
    for (tid, mut row) in scan(&engine, db, &PG_CLASS, txn, |r| oid_of(&r[0]) == oid)? {
        row[RELFILENODE] = Datum::Oid(filenode);
        row[RELPAGES] = Datum::Int4(0);
        row[RELTUPLES] = Datum::Float4(-1.0);
        row[RELALLVISIBLE] = Datum::Int4(0);
        replace(&engine, db, &PG_CLASS, txn, tid, &row)?;
    }
    // Later steps of the statement (and the next statements) see the new file.
    txn.increment_command();
    Ok(locator)
}

/// reset_indexes -- empties every index of `table`, whose heap has just been
/// given a new relfilenode: each index must get a new, empty relfilenode the
/// same way (PostgreSQL's reindex_relation on a truncated heap), so that a
/// rolled-back TRUNCATE keeps the old index files with the old heap.
pub(crate) fn reset_indexes(cx: &mut dyn BackendContext, table: &RelationId) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let Some(desc) = relation::by_oid(&engine, db, &ctx, table.oid)? else { return Ok(()) };
    for index in indexes_of(&engine, db, &ctx, table.oid)? {
        let Some(id) = relation::find_by_oid_as(&engine, db, &ctx, index.oid)? else { continue };
        let mut btree = index.btree(&desc);
        set_new_relfilenode(cx, &id, |engine, locator| {
            engine.create_relation_fork(locator, ForkNumber::Main)?;
            btree.locator = locator;
            btree_build(engine, &btree, Vec::new(), false)?;
            Ok(())
        })?;
    }
    Ok(())
}

/// reset_sequence -- RESTART IDENTITY for one sequence (PostgreSQL's
/// ResetSequence): a new relfilenode whose counter stands at the START value,
/// not yet called. The parameters are unchanged; the session's cached values
/// are dropped by nextval when it sees the new relfilenode, while currval
/// keeps its value, as in PostgreSQL.
fn reset_sequence(cx: &mut dyn BackendContext, seq: &RelationId) -> Result<()> {
    let mut state = seqstore::read(cx.engine(), seq.locator)?;
    state.data = SeqData { last_value: state.params.start, log_cnt: 0, is_called: false };
    set_new_relfilenode(cx, seq, |engine, locator| {
        seqstore::create(engine, locator, &state)?;
        Ok(())
    })?;
    Ok(())
}
