//! Advisory locks: the `pg_advisory_*` functions (PostgreSQL's
//! `utils/adt/lockfuncs.c`).
//!
//! An advisory lock is a heavyweight lock on a [`LockTag::Advisory`] key of
//! the session's database, whose meaning is up to the application. The
//! plain functions take it for the session: it stays across transactions,
//! each lock needs its own unlock (holds are counted), and it goes with
//! `pg_advisory_unlock_all()` or when the backend exits. The `_xact`
//! functions take it for the transaction, which gives it back when it ends;
//! they have no unlock; taken inside a savepoint, they go at its ROLLBACK
//! TO, as PostgreSQL's subtransaction resource owner gives them back. `_shared` means `ShareLock` (shared holders coexist)
//! instead of `ExclusiveLock`; `pg_try_` returns false instead of waiting.
//!
//! Waits go through the lock manager like table locks do, so they honour
//! `lock_timeout`, cancel and statement timeout, take part in deadlock
//! detection and show in `pg_locks` and `pg_blocking_pids`.
//!
//! Session and transaction holds are counted apart by the lock manager, so
//! an unlock only ever gives back a session hold: a lock held only by the
//! transaction is "not owned" to `pg_advisory_unlock`, as in PostgreSQL.

use super::super::host::ExecHost;
use crate::error::{Result, SqlError};
use crate::executor::lmgr::acquire_with_settings;
use crate::expr::AdvisoryLock;
use sluice_txn::lmgr::{LockError, LockMode, LockTag, LockWaitParams};
use sluice_types::Datum;

/// The tag the function's key arguments name, or `None` if one is NULL (the
/// functions are strict).
fn key_tag(host: &mut ExecHost, args: &[Datum]) -> Option<LockTag> {
    let database = host.database();
    match args {
        // The bigint form: high and low halves, form 1.
        [key] => {
            let key = key.as_i64()? as u64;
            Some(LockTag::Advisory {
                database,
                key1: (key >> 32) as u32,
                key2: key as u32,
                form: 1,
            })
        }
        // Two integers, form 2: negative ones are stored by their bits.
        [a, b] => Some(LockTag::Advisory {
            database,
            key1: a.as_i64()? as i32 as u32,
            key2: b.as_i64()? as i32 as u32,
            form: 2,
        }),
        _ => None,
    }
}

fn mode(shared: bool) -> LockMode {
    if shared {
        LockMode::Share
    } else {
        LockMode::Exclusive
    }
}

/// lock -- the locking functions: waits (or, for `pg_try_`, does not) and
/// returns void (an empty text) or whether the lock was taken.
pub fn lock(host: &mut ExecHost, which: AdvisoryLock, args: &[Datum]) -> Result<Datum> {
    let Some(tag) = key_tag(host, args) else { return Ok(Datum::Null) };
    let mode = mode(which.shared);
    let locks = host.engine().txns().lock_manager();
    let env = host.env();
    let owner = env.lock_owner;
    let xact_locks = env.xact_locks.clone();
    let acquire = |params: &LockWaitParams| {
        if which.xact {
            xact_locks.lock(tag, mode, params)
        } else {
            locks.acquire_session(owner, tag, mode, params)
        }
    };
    if which.try_only {
        let never = || false;
        let params = LockWaitParams { nowait: true, ..LockWaitParams::new(&never) };
        return match acquire(&params) {
            Ok(()) => Ok(Datum::Bool(true)),
            Err(LockError::NotAvailable(_)) => Ok(Datum::Bool(false)),
            Err(other) => Err(SqlError::from(other)),
        };
    }
    // Never NOWAIT, so no "could not obtain lock" message to name.
    acquire_with_settings(env, false, None, acquire)?;
    Ok(Datum::Text(String::new()))
}

/// unlock -- gives back one session hold; false with PostgreSQL's WARNING if
/// the session holds none of that mode.
pub fn unlock(host: &mut ExecHost, shared: bool, args: &[Datum]) -> Result<Datum> {
    let Some(tag) = key_tag(host, args) else { return Ok(Datum::Null) };
    let mode = mode(shared);
    let locks = host.engine().txns().lock_manager();
    let env = host.env();
    if locks.release_session(env.lock_owner.proc, tag, mode) {
        return Ok(Datum::Bool(true));
    }
    let name = mode.name();
    env.notices.push(SqlError::new("01000", format!("you don't own a lock of type {name}")));
    Ok(Datum::Bool(false))
}

/// unlock_all -- gives back every session-level advisory lock (transaction
/// ones and other session locks stay).
pub fn unlock_all(host: &mut ExecHost) -> Datum {
    let locks = host.engine().txns().lock_manager();
    let proc = host.env().lock_owner.proc;
    locks.release_session_where(proc, |tag| matches!(tag, LockTag::Advisory { .. }));
    Datum::Text(String::new())
}
