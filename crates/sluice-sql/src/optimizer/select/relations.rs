//! Tables named in FROM: system views told apart from tables, a table's
//! columns as a scope, opening and locking it under the statement's
//! snapshot, and noticing when its catalog rows moved on since (a
//! concurrent DDL committed while the statement waited for its lock).

use super::*;

/// Whether `rv` names a system view computed from live state.
pub(super) fn is_system_view(rv: &protobuf::RangeVar) -> bool {
    matches!(rv.schemaname.as_str(), "" | "pg_catalog")
        && crate::catalog::system_views::is_system_view(&rv.relname)
}

/// open_relation -- looks up a table named in a query and locks it in
/// `mode`. The name is looked up before the lock is granted; if a
/// transaction that held a conflicting lock meanwhile committed a change to
/// the table's catalog row (a TRUNCATE's new file, a DROP), the lookup is
/// repeated with a fresh snapshot (see [`catalog_moved_on`]), so rows are
/// never read from, or written to, a file the table no longer has.
pub fn open_relation(
    parts: &mut dyn PlannerContext,
    rv: &protobuf::RangeVar,
    mode: LockMode,
) -> Result<RelationDesc> {
    loop {
        let rel = lookup_relation(parts, rv)?;
        parts.lock_relation(rel.oid, mode)?;
        if !catalog_moved_on(parts, rel.oid, mode >= LockMode::RowExclusive)? {
            return Ok(rel);
        }
    }
}

/// catalog_moved_on -- after locking relation `oid`: whether its `pg_class`
/// row as this statement read it was replaced by a transaction that
/// committed since the statement's snapshot (PostgreSQL would have received
/// an invalidation). Under READ COMMITTED the statement then drops its
/// snapshot, so that looking the relation up again finds the current row
/// (and later reads use the newer snapshot, as PostgreSQL's would, taken
/// after locking) — the caller looks it up again. Under REPEATABLE READ the
/// snapshot cannot move: a statement about to write (`writing`) fails with
/// 40001 rather than write through a stale description; a reader carries on.
pub(crate) fn catalog_moved_on(
    parts: &mut dyn PlannerContext,
    oid: Oid,
    writing: bool,
) -> Result<bool> {
    let parts = parts.planner_parts();
    if !relation::superseded(parts.engine, parts.database, parts.txn, oid)? {
        return Ok(false);
    }
    if parts.txn.isolation() == IsolationLevel::ReadCommitted {
        parts.txn.end_statement();
        return Ok(true);
    }
    if writing {
        return Err(SqlError::new("40001", "could not serialize access due to concurrent update"));
    }
    Ok(false)
}

/// The table `rv` names, as the statement's snapshot sees the catalogs.
fn lookup_relation(
    parts: &mut dyn PlannerContext,
    rv: &protobuf::RangeVar,
) -> Result<RelationDesc> {
    let mut parts = parts.planner_parts();
    let path = parts.search_path()?;
    namespace::lookup(parts.engine, parts.database, parts.txn, &path, rv)?
        .ok_or_else(|| missing_relation(&namespace::written_name(rv)).at(position(rv.location)))
}
