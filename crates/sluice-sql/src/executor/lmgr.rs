//! Heavyweight lock acquisition with the backend's wait settings
//! (`lock_timeout`, `deadlock_timeout`) and interrupt check, and
//! PostgreSQL's errors for a lock not obtained (the callers of
//! `storage/lmgr/lmgr.c`). Table locks taken while planning are noted in
//! the statement's plan log, so a kept plan takes them again.

use super::context::{BackendEnv, ExecParts};
use crate::catalog::schema::PG_NAMESPACE;
use crate::error::{Result, SqlError};
use sluice_common::Oid;
use sluice_guc::Settings;
use sluice_txn::lmgr::{LockError, LockMode, LockTag, LockWaitParams};

/// Takes a table lock under the statement's transaction; waits are interrupted
/// by cancel and timeouts.
pub(crate) fn lock_relation_in(parts: &mut ExecParts, oid: Oid, mode: LockMode) -> Result<()> {
    lock_relation_with(parts, oid, mode, false, None)
}

/// lock_relation_with -- takes a table lock honouring `lock_timeout` and
/// `deadlock_timeout`; `nowait` fails at once with 55P03 naming `name`.
pub fn lock_relation_with(
    parts: &mut ExecParts,
    oid: Oid,
    mode: LockMode,
    nowait: bool,
    name: Option<&str>,
) -> Result<()> {
    let tag = LockTag::Relation { database: parts.env.database, relation: oid };
    let txn = &*parts.txn;
    acquire_with_settings(&parts.env, nowait, name, |params| txn.lock(tag, mode, params))?;
    parts.plan_log.locks.push((oid, mode));
    Ok(())
}

/// lock_object -- takes a lock on a database object other than a relation
/// (a schema: LOCKTAG_OBJECT on catalog `classid`), as PostgreSQL's
/// LockDatabaseObject does for DDL.
pub(crate) fn lock_object(
    parts: &mut ExecParts,
    classid: Oid,
    objid: Oid,
    mode: LockMode,
) -> Result<()> {
    let tag = LockTag::Object { database: parts.env.database, classid, objid, objsubid: 0 };
    let txn = &*parts.txn;
    acquire_with_settings(&parts.env, false, None, |params| txn.lock(tag, mode, params))
}

/// lock_namespace -- locks schema `oid` in `mode`. A schema change that
/// committed while this waited is not in the statement's snapshot: under
/// READ COMMITTED the snapshot is renewed, so that looking the schema up
/// again by name sees it (PostgreSQL accepts invalidation messages after
/// locking and its callers look the name up again, as these do).
pub(crate) fn lock_namespace(parts: &mut ExecParts, oid: Oid, mode: LockMode) -> Result<()> {
    lock_object(parts, PG_NAMESPACE.oid, oid, mode)?;
    if parts.engine.txns().catalog_changes().changed_since(&parts.txn.snapshot()) {
        parts.txn.end_statement();
    }
    Ok(())
}

/// lock_relation_name -- serialises the creation of relations named
/// `name` in schema `namespace` until the transaction ends. PostgreSQL
/// gets this from `pg_class`'s unique index on (relname, relnamespace): a
/// second creator of the name waits for the first and then fails with
/// 42P07. Here the name itself is locked (LOCKTAG_OBJECT on `pg_class`,
/// keyed by a hash of the name; a collision only makes two creators wait
/// for each other), and a snapshot older than a catalog change that
/// committed meanwhile is renewed (READ COMMITTED), so the caller's
/// existence check that follows sees the first creator's relation.
pub(crate) fn lock_relation_name(parts: &mut ExecParts, namespace: Oid, name: &str) -> Result<()> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut hasher);
    let tag = LockTag::Object {
        database: parts.env.database,
        classid: crate::catalog::schema::PG_CLASS.oid,
        objid: hasher.finish() as u32,
        objsubid: namespace as i32,
    };
    let txn = &*parts.txn;
    acquire_with_settings(&parts.env, false, None, |params| {
        txn.lock(tag, LockMode::AccessExclusive, params)
    })?;
    if parts.engine.txns().catalog_changes().changed_since(&parts.txn.snapshot()) {
        parts.txn.end_statement();
    }
    Ok(())
}

/// acquire_with_settings -- runs `acquire` with wait parameters from the
/// session's settings (`lock_timeout`, `deadlock_timeout`) and its interrupt
/// check, and turns a failure into PostgreSQL's error for a relation lock.
/// Callers without the transaction at hand (sequence functions) acquire
/// through the lock manager directly.
pub(crate) fn acquire_with_settings(
    env: &BackendEnv,
    nowait: bool,
    name: Option<&str>,
    acquire: impl FnOnce(&LockWaitParams) -> std::result::Result<(), LockError>,
) -> Result<()> {
    let interrupts = env.interrupts.clone();
    let interrupted = move || interrupts().is_err();
    let mut params = LockWaitParams::new(&interrupted);
    params.nowait = nowait;
    params.lock_timeout = env.settings.get_duration("lock_timeout").filter(|d| !d.is_zero());
    if let Some(d) = env.settings.get_duration("deadlock_timeout") {
        params.deadlock_timeout = d;
    }
    acquire(&params).map_err(|e| match e {
        LockError::Interrupted => match (env.interrupts)() {
            Err(reason) => reason,
            Ok(()) => SqlError::from(e),
        },
        LockError::NotAvailable(_) => SqlError::new(
            "55P03",
            format!("could not obtain lock on relation \"{}\"", name.unwrap_or("?")),
        ),
        other => SqlError::from(other),
    })
}
