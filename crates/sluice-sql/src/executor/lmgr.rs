//! Heavyweight lock acquisition with the backend's wait settings
//! (`lock_timeout`, `deadlock_timeout`) and interrupt check, and
//! PostgreSQL's errors for a lock not obtained (the callers of
//! `storage/lmgr/lmgr.c`). Table locks taken while planning are noted in
//! the statement's plan log, so a kept plan takes them again.

use super::context::{BackendEnv, ExecParts};
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
