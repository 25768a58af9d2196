//! The LockRows node: locks, row by row, the table rows a SELECT ... FOR
//! UPDATE/SHARE returns (PostgreSQL's `nodeLockRows.c`).
//!
//! Its input rows carry, after the query's outputs, the whole FROM row, in
//! which each locked table's columns are followed by the version's address
//! (a junk column, see `select/rowmarks.rs`). For each input row the node
//! locks every marked version through `heap_lock_tuple`:
//!
//! * locked: the row goes up;
//! * held by another transaction: wait (then look again), fail with 55P03
//!   (NOWAIT), or leave the row out (SKIP LOCKED);
//! * deleted, or changed by this very transaction since the snapshot:
//!   left out;
//! * updated by a committed transaction: under REPEATABLE READ a
//!   serialization failure; under READ COMMITTED the newest version is
//!   locked instead, the WHERE clause is checked again on the FROM row with
//!   that version in place (the other tables' rows as they were), and the
//!   outputs are computed again from it (PostgreSQL's EvalPlanQual, reduced
//!   to the WHERE clause: join conditions are not re-checked).
//!
//! The node sits under LIMIT, so a `LIMIT 1 FOR UPDATE SKIP LOCKED` locks
//! one row, not every row the scan passes.

use super::{RowSource, Source};
use crate::catalog::rows::deform_row;
use crate::error::{Result, SqlError};
use crate::executor::host::ExecHost;
use crate::expr::{eval, eval_qual};
pub use crate::optimizer::plannodes::{LockRowsSpec, RowMark};
use sluice_access::heap::epq::latest_version;
use sluice_access::heap::heapam::{LockWaitPolicy, TmFailure};
use sluice_access::heap::tuplock::{heap_lock_tuple, RowLockTarget};
use sluice_access::AccessError;
use sluice_common::ItemPointer;
use sluice_txn::IsolationLevel;
use sluice_types::Datum;

/// The row address as a junk column value.
pub fn tid_datum(tid: ItemPointer) -> Datum {
    Datum::Int8((i64::from(tid.block) << 16) | i64::from(tid.offset))
}

/// The row address a junk column holds.
fn datum_tid(value: &Datum) -> Result<ItemPointer> {
    match value {
        Datum::Int8(v) => Ok(ItemPointer::new((v >> 16) as u32, (v & 0xffff) as u16)),
        _ => Err(SqlError::internal("row address column is missing")),
    }
}

/// The running LockRows node.
pub(super) struct LockRowsSource<'e> {
    pub(super) input: Source<'e>,
    pub(super) spec: &'e LockRowsSpec,
}

impl<'e> RowSource<'e> for LockRowsSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        while let Some(mut row) = self.input.next(host)? {
            if self.lock_row(&mut row, host)? {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }
}

impl LockRowsSource<'_> {
    /// lock_row -- locks every marked version of `row`; false if the row is
    /// to be left out. A newer version found on the way replaces its table's
    /// columns in `row` and the outputs are computed again.
    fn lock_row(&self, row: &mut [Datum], host: &mut ExecHost) -> Result<bool> {
        let mut replaced = false;
        for mark in &self.spec.marks {
            let at = self.spec.from + mark.tid;
            match self.lock_mark(mark, datum_tid(&row[at])?, host)? {
                Locked::Same => {}
                Locked::Skip => return Ok(false),
                Locked::Newer(tid, tuple) => {
                    let values = deform_row(&mark.rel.tuple_desc(), &mark.rel.types(), &tuple)?;
                    let start = self.spec.from + mark.first;
                    row[start..start + values.len()].clone_from_slice(&values);
                    row[at] = tid_datum(tid);
                    replaced = true;
                }
            }
        }
        if replaced {
            let from = row[self.spec.from..].to_vec();
            if let Some(qual) = &self.spec.recheck {
                if !eval_qual(qual, &from, host)? {
                    return Ok(false);
                }
            }
            for (i, e) in self.spec.exprs.iter().enumerate() {
                row[i] = eval(e, &from, host)?;
            }
        }
        Ok(true)
    }

    /// lock_mark -- locks the version of `mark`'s table at `tid`, following
    /// its update chain under READ COMMITTED.
    fn lock_mark(
        &self,
        mark: &RowMark,
        mut tid: ItemPointer,
        host: &mut ExecHost,
    ) -> Result<Locked> {
        let heap = mark.rel.heap();
        let database = host.database();
        let interrupts = host.interrupts();
        let interrupted = || interrupts().is_err();
        let mut newer = None;
        loop {
            let (engine, txn) = host.row_locker()?;
            let target = RowLockTarget { database, relation: mark.rel.oid, tid };
            let outcome = heap_lock_tuple(
                engine,
                &heap,
                txn,
                target,
                mark.spec.strength,
                mark.spec.policy,
                &interrupted,
            )
            .map_err(|e| match e {
                AccessError::Interrupted => interrupts().err().unwrap_or_else(|| e.into()),
                other => other.into(),
            })?;
            let failure = match outcome {
                Ok(()) => return Ok(newer.map_or(Locked::Same, |tuple| Locked::Newer(tid, tuple))),
                Err(failure) => failure,
            };
            let repeatable = txn.isolation() == IsolationLevel::RepeatableRead;
            match failure {
                TmFailure::WouldBlock if mark.spec.policy == LockWaitPolicy::SkipLocked => {
                    return Ok(Locked::Skip)
                }
                TmFailure::WouldBlock => {
                    return Err(SqlError::new(
                        "55P03",
                        format!("could not obtain lock on row in relation \"{}\"", mark.rel.name),
                    ))
                }
                TmFailure::SelfModified => return Ok(Locked::Skip),
                TmFailure::Invisible => {
                    return Err(SqlError::internal("attempted to lock invisible tuple"))
                }
                TmFailure::Updated(_) | TmFailure::Deleted if repeatable => {
                    return Err(SqlError::new(
                        "40001",
                        "could not serialize access due to concurrent update",
                    ))
                }
                TmFailure::Deleted => return Ok(Locked::Skip),
                TmFailure::Updated(next) => match latest_version(engine, &heap, next)? {
                    Some((latest, tuple)) => {
                        tid = latest;
                        newer = Some(tuple);
                    }
                    None => return Ok(Locked::Skip),
                },
            }
        }
    }
}

/// The outcome of locking one table's version of a row.
enum Locked {
    /// The version the scan found is locked.
    Same,
    /// A newer version (at this address, with these bytes) is locked.
    Newer(ItemPointer, Vec<u8>),
    /// The row is to be left out.
    Skip,
}
