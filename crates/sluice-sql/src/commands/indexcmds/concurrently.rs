//! CREATE INDEX CONCURRENTLY (the concurrent path of PostgreSQL's
//! `DefineIndex`, with `validate_index` and `WaitForOlderSnapshots`) and
//! DROP INDEX CONCURRENTLY (the concurrent path of `index_drop`).
//!
//! A plain CREATE INDEX holds a SHARE lock on the table for the whole build,
//! so every writer waits. CONCURRENTLY takes only SHARE UPDATE EXCLUSIVE
//! (which writers do not conflict with) and splits the work into
//! transactions, each of which must be seen by every writer before the next
//! step may rely on it:
//!
//! 1. **Entry.** The index's catalog rows are written with `indisready` and
//!    `indisvalid` false, with a file of no pages (the build writes it
//!    whole, metapage included), and committed. Writers
//!    that open the table from now on know the index exists but leave it
//!    alone; queries ignore it.
//! 2. **Build.** Once every transaction that held a lock conflicting with
//!    SHARE when the entry committed has ended (`wait_for_lockers`: each of
//!    them may still be writing without knowing of the index), a snapshot is
//!    taken and every tuple it sees is indexed, sorted and written
//!    bottom-up. The index is then marked `indisready` and that commits:
//!    writers add entries for their new versions from now on.
//! 3. **Validation.** After waiting out the writers that might not have
//!    seen `indisready`, a new reference snapshot is taken; every tuple it
//!    sees whose address is not in the index yet (rows written between the
//!    build's snapshot and the moment their writer saw `indisready`) is
//!    added, with unique checks. Then every transaction whose snapshot is
//!    older than the reference snapshot's xmin is waited for — such a
//!    snapshot could still see rows the index lacks — and the index is
//!    marked `indisvalid`. Queries plan with it from the next statement.
//!
//! The SHARE UPDATE EXCLUSIVE lock is a *session* lock: it outlives the
//! commits between the steps, so no DDL, VACUUM or second concurrent build
//! can touch the table in between, and it is released however the command
//! ends. If a step fails, the entry stays behind as an invalid index (`\d`
//! shows INVALID), as in PostgreSQL: DROP INDEX removes it.
//!
//! DROP INDEX CONCURRENTLY runs the same steps backwards, under the same
//! session lock: the index is marked not valid (queries stop choosing it)
//! and that commits; once every transaction that held any lock on the table
//! then has ended (each may be running a plan that reads the index), it is
//! marked not ready (writers stop adding to it) and that commits; after
//! waiting out the table's lockers once more — a writer may still be adding
//! entries — its catalog rows go and its file is removed at commit. Neither
//! readers nor writers of the table wait for the drop at any step.
//!
//! Waiting for a transaction is sleeping on its xid's lock; a lock holder
//! that has no xid yet (it has not written) is polled until it gets one or
//! lets go of its lock. sluice's writers take their xid before their table
//! lock, so the polling is rare and short.

use super::{build_index_from, create_index_entry, BuildScan, CreatedIndex, IndexState, NewIndex};
use crate::catalog::index::indexes_of;
use crate::catalog::relation::{oid_of, RelationDesc};
use crate::catalog::rows::deform_row;
use crate::catalog::schema::PG_INDEX;
use crate::catalog::{replace, scan};
use crate::commands::tablecmds::lock_relation;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::executor::indexing::IndexSet;
use crate::executor::lmgr::acquire_with_settings;
use crate::expr::EvalHost;
use crate::sink::QuerySink;
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::nbtree::BTreeScan;
use sluice_common::{ItemPointer, Oid, Xid};
use sluice_txn::lmgr::{LockMode, LockTag};
use sluice_txn::{Backend, ProcId};
use sluice_types::Datum;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// How long to sleep between looks at a lock holder that has no xid yet.
const POLL_INTERVAL: Duration = Duration::from_millis(5);

/// The lock CONCURRENTLY holds across its transactions.
const BUILD_LOCK: LockMode = LockMode::ShareUpdateExclusive;

/// pg_index columns the steps flip.
pub const INDISVALID: usize = 10;
pub const INDISREADY: usize = 12;

/// define_index_concurrently -- creates and builds an index on `table`
/// without blocking writers (see the module doc). Returns its OID, or
/// `None` if IF NOT EXISTS found the name taken.
pub(super) fn define_index_concurrently(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    spec: NewIndex,
    sink: &mut dyn QuerySink,
) -> Result<Option<Oid>> {
    let held = SessionLock::on_table(cx, table.oid)?;
    let tag = held.tag;
    let Some(created) = create_index_entry(cx, table, &spec, IndexState::Building, sink)? else {
        return Ok(None);
    };
    cx.restart_transaction()?;

    wait_for_lockers(cx, tag, LockMode::Share)?;
    build_index_from(cx, table, created.oid, &created.name, BuildScan::Snapshot)?;
    set_index_flag(cx, created.oid, INDISREADY, true)?;
    cx.restart_transaction()?;

    wait_for_lockers(cx, tag, LockMode::Share)?;
    let reference_xmin = validate_index(cx, table, &created)?;
    cx.restart_transaction()?;
    wait_for_older_snapshots(cx, reference_xmin)?;
    set_index_flag(cx, created.oid, INDISVALID, true)?;
    Ok(Some(created.oid))
}

/// drop_index_concurrently -- removes `index` of `table` without blocking
/// the table's readers or writers (see the module doc).
pub(super) fn drop_index_concurrently(
    cx: &mut dyn BackendContext,
    table: Oid,
    index: Oid,
) -> Result<()> {
    let held = SessionLock::on_table(cx, table)?;
    let tag = held.tag;
    set_index_flag(cx, index, INDISVALID, false)?;
    cx.restart_transaction()?;

    wait_for_lockers(cx, tag, LockMode::AccessExclusive)?;
    set_index_flag(cx, index, INDISREADY, false)?;
    cx.restart_transaction()?;

    wait_for_lockers(cx, tag, LockMode::AccessExclusive)?;
    lock_relation(cx, index, LockMode::AccessExclusive)?;
    super::remove_index(cx, index)
}

/// A session lock on the table, released when the command ends however it
/// ends.
pub struct SessionLock {
    backend: Arc<Backend>,
    /// The table's lock tag, which the steps wait out the table's lockers on.
    pub tag: LockTag,
}

impl SessionLock {
    /// on_table -- locks `table` in SHARE UPDATE EXCLUSIVE for this
    /// transaction and for the session, so the lock outlives the commits
    /// between the steps.
    pub fn on_table(cx: &mut dyn BackendContext, table: Oid) -> Result<SessionLock> {
        lock_relation(cx, table, BUILD_LOCK)?;
        let tag = LockTag::Relation { database: cx.database(), relation: table };
        let backend = cx.backend().clone();
        let locks = backend.manager().lock_manager();
        let owner = backend.lock_owner();
        acquire_with_settings(&cx.parts()?.env, false, None, |params| {
            locks.acquire_session(owner, tag, BUILD_LOCK, params)
        })?;
        Ok(SessionLock { backend, tag })
    }
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        let locks = self.backend.manager().lock_manager();
        locks.release_session(self.backend.proc(), self.tag, BUILD_LOCK);
    }
}

/// The B-tree of `table`'s index `oid` as the current transaction sees it.
pub fn index_of(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    oid: Oid,
) -> Result<(sluice_access::nbtree::BTreeIndex, crate::catalog::index::IndexDesc)> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let index = indexes_of(&engine, db, &ctx, table.oid)?
        .into_iter()
        .find(|i| i.oid == oid)
        .ok_or_else(|| SqlError::internal("the new index disappeared"))?;
    Ok((index.btree(table), index))
}

/// set_index_flag -- sets one of `indisready`/`indisvalid` of index `oid`.
pub fn set_index_flag(
    cx: &mut dyn BackendContext,
    oid: Oid,
    column: usize,
    value: bool,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    for (tid, mut row) in scan(&engine, db, &PG_INDEX, txn, |r| oid_of(&r[0]) == oid)? {
        row[column] = Datum::Bool(value);
        replace(&engine, db, &PG_INDEX, txn, tid, &row)?;
    }
    Ok(())
}

/// validate_index -- adds to the index every tuple a new reference snapshot
/// sees that it does not hold yet; returns that snapshot's xmin.
pub fn validate_index(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    created: &CreatedIndex,
) -> Result<Xid> {
    let (btree, index) = index_of(cx, table, created.oid)?;
    let mut parts = cx.parts()?;
    let engine = parts.engine.clone();
    let reference_xmin = parts.txn.snapshot().xmin;
    let ctx = VisibilityContext::for_transaction(parts.txn, engine.txns());
    let mut indexed = HashSet::new();
    let mut entries = BTreeScan::begin(&engine, &btree, None, false)?;
    while let Some(tid) = entries.next_tid()? {
        indexed.insert(tid);
    }
    let missing = missing_tuples(&engine, table, &ctx, &indexed)?;
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx.clone());
    let target = IndexSet::open_one(&host, table, index.oid)?;
    let (desc, types) = (table.tuple_desc(), table.types());
    for (tid, tuple) in missing {
        host.check_interrupts()?;
        target.insert(parts.txn, &mut host, &deform_row(&desc, &types, &tuple)?, tid)?;
    }
    Ok(reference_xmin)
}

/// The tuples `ctx`'s snapshot sees whose HOT chain roots (where their
/// entries point) are not in `indexed`, with those roots.
fn missing_tuples(
    engine: &sluice_access::Engine,
    table: &RelationDesc,
    ctx: &VisibilityContext,
    indexed: &HashSet<ItemPointer>,
) -> Result<Vec<(ItemPointer, Vec<u8>)>> {
    let mut missing = Vec::new();
    let mut heap = HeapScan::begin(engine, &table.heap(), ctx.clone())?;
    while let Some((_, root, tuple)) = heap.next_indexable()? {
        if !indexed.contains(&root) {
            missing.push((root, tuple));
        }
    }
    Ok(missing)
}

/// wait_for_lockers -- waits until every transaction that now holds a lock
/// on `tag` conflicting with `mode` has ended (PostgreSQL's WaitForLockers):
/// SHARE finds the writers, ACCESS EXCLUSIVE every user of the table.
pub fn wait_for_lockers(cx: &mut dyn BackendContext, tag: LockTag, mode: LockMode) -> Result<()> {
    let backend = cx.backend().clone();
    let me = backend.proc();
    let holders = backend.manager().lock_manager().conflicting_holders(tag, mode, me);
    for holder in holders {
        wait_for_proc(cx, holder.proc, |s| {
            let locks = s.backend().manager().lock_manager();
            locks.conflicting_holders(tag, mode, me).iter().any(|h| h.proc == holder.proc)
        })?;
    }
    Ok(())
}

/// wait_for_older_snapshots -- waits until no other backend holds a
/// snapshot whose xmin is below `limit` (PostgreSQL's WaitForOlderSnapshots).
pub fn wait_for_older_snapshots(cx: &mut dyn BackendContext, limit: Xid) -> Result<()> {
    let me = cx.backend().proc();
    let holding_older = |s: &dyn BackendContext| -> Vec<ProcId> {
        let states = s.backend().manager().proc_states();
        states.iter().filter(|p| p.xmin.is_some_and(|x| x < limit)).map(|p| p.proc).collect()
    };
    for proc in holding_older(cx).into_iter().filter(|&p| p != me) {
        wait_for_proc(cx, proc, |s| holding_older(s).contains(&proc))?;
    }
    Ok(())
}

/// wait_for_proc -- waits while `still` says backend `proc`'s transaction
/// is one we must outlast: on its xid's lock when it has one (its
/// transaction then has ended), else by polling, registered as a wait for
/// that backend so that `pg_blocking_pids` names it.
fn wait_for_proc(
    cx: &mut dyn BackendContext,
    proc: ProcId,
    still: impl Fn(&dyn BackendContext) -> bool,
) -> Result<()> {
    let backend = cx.backend().clone();
    let locks = backend.manager().lock_manager();
    let mut watch = None;
    while still(cx) {
        let states = backend.manager().proc_states();
        let state = states.iter().find(|p| p.proc == proc);
        let xid = state.and_then(|p| p.xid);
        if watch.is_none() {
            watch = state.map(|p| locks.watch_backend(backend.lock_owner().pid, p.pid));
        }
        let parts = cx.parts()?;
        match xid {
            Some(xid) => {
                let txn = &*parts.txn;
                acquire_with_settings(&parts.env, false, None, |params| {
                    txn.wait_for_xid(xid, params)
                })?;
                return Ok(());
            }
            None => {
                (parts.env.interrupts)()?;
                std::thread::sleep(POLL_INTERVAL);
            }
        }
    }
    Ok(())
}
