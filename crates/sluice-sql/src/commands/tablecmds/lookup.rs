//! Finding and locking the relation a DDL statement changes, and telling
//! the statements that waited for it that it changed (PostgreSQL does both
//! through relcache invalidation messages; sluice through `pg_class` row
//! versions and `relation::superseded`).

use super::{lock_relation, refuse_system_catalog};
use crate::catalog::relation::{self, oid_of, RelationDesc, RelationId};
use crate::catalog::scan;
use crate::catalog::schema::PG_CLASS;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// describe -- relation `oid`'s descriptor as the command sees the catalogs
/// now (after its own earlier changes).
pub(crate) fn describe(cx: &mut dyn BackendContext, oid: Oid) -> Result<RelationDesc> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = sluice_access::heap::visibility::VisibilityContext::for_transaction(
        cx.txn()?,
        engine.txns(),
    );
    relation::by_oid(&engine, db, &ctx, oid)?
        .ok_or_else(|| SqlError::internal(format!("cache lookup failed for relation {oid}")))
}

/// see_committed_catalogs -- under READ COMMITTED, renews the statement's
/// snapshot if a catalog change committed since it was taken: a command
/// that now holds the lock keeping such changes away (a table's
/// ACCESS EXCLUSIVE keeps views over it from being created or replaced)
/// must also see those that committed before it got the lock, as
/// PostgreSQL's do after accepting invalidation messages.
pub(crate) fn see_committed_catalogs(cx: &mut dyn BackendContext) -> Result<()> {
    let engine = cx.engine().clone();
    let txn = cx.txn()?;
    if engine.txns().catalog_changes().changed_since(&txn.snapshot()) {
        txn.end_statement();
    }
    Ok(())
}

/// lock_if_still_there -- locks relation `oid` (found earlier under the
/// statement's snapshot) in `mode`; whether it still exists once the lock
/// is held. Another session may have dropped it while this one waited:
/// under READ COMMITTED the snapshot is renewed to see that (what a DROP
/// ... CASCADE meets for a dependent dropped meanwhile, as PostgreSQL's
/// deletion skips an object already gone).
pub(crate) fn lock_if_still_there(
    cx: &mut dyn BackendContext,
    oid: Oid,
    mode: LockMode,
) -> Result<bool> {
    lock_relation(cx, oid, mode)?;
    let mut parts = cx.parts()?;
    if !crate::optimizer::select::catalog_moved_on(&mut parts, oid, true)? {
        return Ok(true);
    }
    drop(parts);
    let (engine, db) = (cx.engine().clone(), cx.database());
    Ok(relation::find_by_oid(&engine, db, cx.txn()?, oid)?.is_some())
}

/// lock_for_ddl -- the relation `rv` names, locked in `mode`, as the
/// catalogs stand once the lock is held: if DDL on it committed while this
/// statement waited, a READ COMMITTED statement looks again under a new
/// snapshot (a REPEATABLE READ one fails with 40001), so it never alters
/// what it read before the wait. `None` if there is no such relation; 42501
/// for a system catalog, before any lock is taken.
pub(crate) fn lock_for_ddl(
    cx: &mut dyn BackendContext,
    rv: &pg_query::protobuf::RangeVar,
    mode: LockMode,
) -> Result<Option<RelationId>> {
    loop {
        let Some(rel) = cx.find_relation(rv)? else { return Ok(None) };
        refuse_system_catalog(&rel)?;
        lock_relation(cx, rel.oid, mode)?;
        let mut parts = cx.parts()?;
        if !crate::optimizer::select::catalog_moved_on(&mut parts, rel.oid, true)? {
            return Ok(Some(rel));
        }
    }
}

/// touch_class_row -- writes a new version of relation `oid`'s `pg_class`
/// row: DDL that changes only other catalogs (a column dropped or
/// renamed) does this so that statements that waited for its lock see that
/// the relation changed (`relation::superseded`, where PostgreSQL sends a
/// relcache invalidation).
pub(crate) fn touch_class_row(cx: &mut dyn BackendContext, oid: Oid) -> Result<()> {
    update_class_row(cx, oid, |_| {})
}

/// update_class_row -- writes relation `oid`'s `pg_class` row again as
/// `change` leaves it (XX000 if there is none), visible to the
/// rest of the command.
pub(crate) fn update_class_row(
    cx: &mut dyn BackendContext,
    oid: Oid,
    change: impl FnOnce(&mut [Datum]),
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let rows = scan(&engine, db, &PG_CLASS, txn, |r| oid_of(&r[0]) == oid)?;
    let Some((tid, mut row)) = rows.into_iter().next() else {
        return Err(SqlError::internal(format!("cache lookup failed for relation {oid}")));
    };
    change(&mut row);
    crate::catalog::replace(&engine, db, &PG_CLASS, txn, tid, &row)?;
    txn.increment_command();
    Ok(())
}
