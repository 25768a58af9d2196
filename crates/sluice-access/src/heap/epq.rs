//! Re-checking the newest version after a concurrent update (PostgreSQL's
//! EvalPlanQual, `execMain.c`, reduced to what the heap can do by itself).
//!
//! Under READ COMMITTED, an UPDATE or DELETE that finds its target row updated by
//! a transaction that committed after the statement's snapshot does not give up
//! and does not overwrite blindly: it follows the update chain to the newest
//! version, re-evaluates the statement's condition on it and, if the row still
//! qualifies, applies the change to that version. Under REPEATABLE READ the same
//! situation is a serialization failure (SQLSTATE 40001): the transaction's
//! snapshot cannot see the version it would have to change.
//!
//! ```text
//!  T1: UPDATE acct SET bal = bal + 10 WHERE id = 1   (holds the row)
//!  T2: UPDATE acct SET bal = bal * 2  WHERE id = 1   (waits for T1)
//!  T1: COMMIT
//!  T2: RC → recomputes from T1's version: (bal + 10) * 2
//!      RR → ERROR: could not serialize access due to concurrent update
//! ```

use super::heapam::{heap_delete, heap_update, IndexedColumnsUnchanged, TmFailure, UpdatedVersion};
use super::multixact::update_xid;
use super::HeapRelation;
use crate::common::htup::HeapTupleHeader;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{ForkNumber, ItemPointer, Xid};
use sluice_storage::buffer::BufferTag;
use sluice_txn::{IsolationLevel, Transaction, XidStatus};

/// latest_version -- follows the update chain from `tid` to the newest version
/// whose successor (if any) is not committed. Returns `None` if the chain ends
/// in a committed delete or in a version whose inserter is not the previous
/// version's updater (the successor was pruned and its slot reused).
pub fn latest_version(
    engine: &Engine,
    rel: &HeapRelation,
    mut tid: ItemPointer,
) -> Result<Option<(ItemPointer, Vec<u8>)>> {
    let mut prior_xmax: Option<Xid> = None;
    loop {
        let buffer =
            engine.pool().read_buffer(BufferTag::new(rel.locator, ForkNumber::Main, tid.block))?;
        let tuple = {
            let page = buffer.read();
            let Some(item) = page.item(tid.offset) else { return Ok(None) };
            item.to_vec()
        };
        let hdr = HeapTupleHeader::new(&tuple[..])?;
        if prior_xmax.is_some_and(|x| x != hdr.xmin()) {
            return Ok(None);
        }
        let xmax = update_xid(&hdr, engine.txns())?;
        let successor_committed =
            xmax.is_valid() && engine.txns().xid_status(xmax)? == XidStatus::Committed;
        if !successor_committed {
            return Ok(Some((tid, tuple)));
        }
        if hdr.ctid() == tid {
            return Ok(None);
        }
        prior_xmax = Some(xmax);
        tid = hdr.ctid();
    }
}

/// What to do with a failed attempt: retry at another version, skip the row, or fail.
fn next_target(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &Transaction,
    failure: TmFailure,
) -> Result<Option<(ItemPointer, Vec<u8>)>> {
    match failure {
        TmFailure::SelfModified => Ok(None),
        TmFailure::WouldBlock => Err(AccessError::Internal("unexpected lock wait outcome".into())),
        TmFailure::Invisible => {
            Err(AccessError::Internal("attempted to update invisible tuple".into()))
        }
        TmFailure::Updated(_) | TmFailure::Deleted
            if txn.isolation() == IsolationLevel::RepeatableRead =>
        {
            Err(AccessError::SerializationFailure)
        }
        TmFailure::Deleted => Ok(None),
        TmFailure::Updated(next) => latest_version(engine, rel, next),
    }
}

/// update_row -- updates the row whose version the statement found at `tid`.
/// `new_version` computes the new tuple from the version being replaced, or
/// returns `None` if that version no longer satisfies the statement's condition
/// (it is called again on each newer version EvalPlanQual finds). Returns the
/// new version (and whether it is heap-only, see [`heap_update`] for
/// `indexed_unchanged`), or `None` if the row was skipped.
///
/// Generic over the caller's error type so that the callbacks can fail with
/// the caller's own errors (expression evaluation, constraint checks).
#[allow(clippy::too_many_arguments)]
pub fn update_row<E: From<AccessError>>(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    mut tid: ItemPointer,
    mut new_version: impl FnMut(&[u8]) -> std::result::Result<Option<Vec<u8>>, E>,
    current: &[u8],
    indexed_unchanged: IndexedColumnsUnchanged,
    interrupted: &dyn Fn() -> bool,
) -> std::result::Result<Option<UpdatedVersion>, E> {
    let mut replacement = match new_version(current)? {
        Some(t) => t,
        None => return Ok(None),
    };
    loop {
        match heap_update(engine, rel, txn, tid, &replacement, indexed_unchanged, interrupted)? {
            Ok(new_version) => return Ok(Some(new_version)),
            Err(failure) => {
                let Some((next, tuple)) = next_target(engine, rel, txn, failure)? else {
                    return Ok(None);
                };
                let Some(t) = new_version(&tuple)? else { return Ok(None) };
                tid = next;
                replacement = t;
            }
        }
    }
}

/// What [`delete_row`] deleted.
#[derive(Debug, PartialEq, Eq)]
pub enum RowDeleted {
    /// Nothing: the row was gone or no longer qualified.
    Nothing,
    /// The version the statement found.
    AsFound,
    /// A newer version EvalPlanQual followed the chain to (RETURNING must
    /// show this one, not the one the statement found).
    Newer(Vec<u8>),
}

/// delete_row -- deletes the row whose version the statement found at `tid`;
/// `still_qualifies` re-checks the statement's condition on newer versions.
/// Returns which version was deleted, if any.
pub fn delete_row<E: From<AccessError>>(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    mut tid: ItemPointer,
    mut still_qualifies: impl FnMut(&[u8]) -> std::result::Result<bool, E>,
    interrupted: &dyn Fn() -> bool,
) -> std::result::Result<RowDeleted, E> {
    let mut newer = None;
    loop {
        match heap_delete(engine, rel, txn, tid, interrupted)? {
            Ok(()) => return Ok(newer.map_or(RowDeleted::AsFound, RowDeleted::Newer)),
            Err(failure) => {
                let Some((next, tuple)) = next_target(engine, rel, txn, failure)? else {
                    return Ok(RowDeleted::Nothing);
                };
                if !still_qualifies(&tuple)? {
                    return Ok(RowDeleted::Nothing);
                }
                tid = next;
                newer = Some(tuple);
            }
        }
    }
}
