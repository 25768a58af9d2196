//! Running INSERT ... ON CONFLICT: the speculative insertion of
//! PostgreSQL's `nodeModifyTable.c`. The clause and its arbiter indexes are
//! planned in `optimizer/modify/onconflict.rs`.
//!
//! # Speculative insertion
//!
//! Each proposed row goes through a loop that never raises a unique
//! violation for a conflict the clause covers, however the row's
//! competitors interleave:
//!
//! ```text
//!  pre-check: probe every arbiter for the key (nothing is inserted)
//!     live row        → DO NOTHING: skip; DO UPDATE: lock it, update it
//!     undecided row   → wait for its transaction, start over
//!     none            → insert the heap tuple, then the arbiter entries
//!                       without waiting (`IndexSet::insert_speculative`):
//!                         inserted  → the other indexes, done
//!                         conflict  → kill our tuple, start over
//! ```
//!
//! A competitor that got its arbiter entry in first wins; we kill our heap
//! tuple (`heap_abort_speculative`: stamped deleted by its own inserter,
//! dead to every unique check at once) and the next pre-check finds the
//! competitor's row, waiting for its transaction if it is still running.
//! PostgreSQL waits on a speculative-insertion token instead, so a waiter
//! is released as soon as the competitor's insertion is settled; here the
//! waiter waits for the competitor's whole transaction, which is correct
//! but holds it a little longer.
//!
//! # DO UPDATE
//!
//! The conflicting row is locked FOR UPDATE (waiting for its holders).
//! If it was updated or deleted meanwhile, READ COMMITTED starts the row
//! over and REPEATABLE READ fails with 40001; a row this very command
//! inserted or updated fails with 21000, as a second change of one row
//! would be ambiguous. Once locked, the WHERE and the SET list are
//! evaluated over the existing row followed by the proposed one
//! (`EXCLUDED`), and the new version replaces the locked one.

use super::constraints::{prepare_row, RowSource};
use super::host::ExecHost;
use super::indexing::{Conflict, IndexSet};
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::{deform_row, form_row};
use crate::error::{Result, SqlError};
use crate::expr::{eval, eval_qual, Expr};
use crate::optimizer::constraint::NewRowRules;
use crate::optimizer::modify::onconflict::{ConflictAction, OnConflict};
use sluice_access::common::htup::HeapTupleHeader;
use sluice_access::heap::heapam::{
    heap_abort_speculative, heap_insert, heap_update, wait_for, LockWaitPolicy, TmFailure,
};
use sluice_access::heap::tuplock::{heap_lock_tuple, RowLockTarget, TupleLockMode};
use sluice_access::heap::visibility::{satisfies_mvcc, VisibilityContext};
use sluice_access::heap::HeapRelation;
use sluice_access::{AccessError, Engine};
use sluice_common::{ForkNumber, ItemPointer, Oid};
use sluice_storage::buffer::BufferTag;
use sluice_txn::{IsolationLevel, Transaction};
use sluice_types::Datum;

/// What became of one proposed row.
pub enum Proposed {
    /// Inserted as proposed, at this address.
    Inserted(ItemPointer),
    /// The conflicting row was updated.
    Updated(UpdatedRow),
    /// Dropped: DO NOTHING, or DO UPDATE whose WHERE was false.
    Skipped,
}

/// A conflicting row DO UPDATE changed: its old values (and whether this
/// transaction wrote them), the new version's address and values.
pub struct UpdatedRow {
    pub old: Vec<Datum>,
    pub old_is_own: bool,
    pub tid: ItemPointer,
    pub new: Vec<Datum>,
}

/// Everything one proposed row's insertion works with.
/// Set up once per statement.
pub(super) struct Speculation<'a, 'e> {
    engine: &'e Engine,
    rel: &'a RelationDesc,
    heap: &'a HeapRelation,
    /// The table's generated columns and CHECK constraints, for a DO
    /// UPDATE's new version.
    rules: NewRowRules<'a>,
    indexes: &'a IndexSet,
    ctx: &'a VisibilityContext<'e>,
    clause: &'a OnConflict,
    /// The arbiter indexes, resolved: every unique index when the clause
    /// names none.
    arbiters: Vec<Oid>,
}

impl<'a, 'e> Speculation<'a, 'e> {
    /// new -- the statement's speculative insertion for `clause` into `rel`.
    pub fn new(
        engine: &'e Engine,
        (rel, heap, rules): (&'a RelationDesc, &'a HeapRelation, NewRowRules<'a>),
        indexes: &'a IndexSet,
        ctx: &'a VisibilityContext<'e>,
        clause: &'a OnConflict,
    ) -> Self {
        let arbiters = match clause.arbiters.is_empty() {
            true => indexes.unique_oids(),
            false => clause.arbiters.clone(),
        };
        Speculation { engine, rel, heap, rules, indexes, ctx, clause, arbiters }
    }

    /// insert -- runs the speculative insertion loop of the module doc for
    /// the proposed `row`.
    pub fn insert(
        &self,
        txn: &mut Transaction,
        host: &mut ExecHost,
        row: &[Datum],
    ) -> Result<Proposed> {
        let (clause, arbiters) = (self.clause, &self.arbiters);
        let interrupts = host.interrupts();
        let interrupted = move || interrupts().is_err();
        loop {
            host.interrupts()()?;
            match self.indexes.probe(txn, host, row, arbiters)? {
                Some(Conflict::InProgress(xid)) => {
                    wait_for(txn, xid, &interrupted).map_err(|e| self.interrupted(e, host))?;
                    continue;
                }
                Some(Conflict::Live(tid)) => match &clause.action {
                    ConflictAction::Nothing => {
                        self.check_visible(txn, tid)?;
                        return Ok(Proposed::Skipped);
                    }
                    ConflictAction::Update { targets, qual } => {
                        let update = (targets.as_slice(), qual.as_ref());
                        match self.update_existing(txn, host, tid, row, update)? {
                            Some(outcome) => return Ok(outcome),
                            None => continue,
                        }
                    }
                },
                None => {}
            }
            let (desc, types) = (self.rel.tuple_desc(), self.rel.types());
            let tid = heap_insert(self.engine, self.heap, txn, &form_row(&desc, &types, row))?;
            if self.indexes.insert_speculative(txn, host, (row, tid), arbiters)? {
                host.env().stats.count_insert(self.rel.oid, txn.savepoint_depth(), 1);
                return Ok(Proposed::Inserted(tid));
            }
            heap_abort_speculative(self.engine, self.heap, txn, tid)?;
        }
    }

    /// update_existing -- DO UPDATE of the conflicting version at `tid`;
    /// `None` when it changed before we could lock it and READ COMMITTED
    /// starts the row over.
    fn update_existing(
        &self,
        txn: &mut Transaction,
        host: &mut ExecHost,
        tid: ItemPointer,
        proposed: &[Datum],
        (targets, qual): (&[(usize, Expr)], Option<&Expr>),
    ) -> Result<Option<Proposed>> {
        if !self.lock(txn, host, tid)? {
            return Ok(None);
        }
        let tuple = self.version(tid)?;
        self.check_visible_tuple(txn, &tuple)?;
        let (desc, types) = (self.rel.tuple_desc(), self.rel.types());
        let existing = deform_row(&desc, &types, &tuple)?;
        let old_is_own = self.ctx.is_own(HeapTupleHeader::new(&tuple[..])?.xmin());
        let mut both = existing.clone();
        both.extend_from_slice(proposed);
        if !qual.map_or(Ok(true), |q| eval_qual(q, &both, host))? {
            return Ok(Some(Proposed::Skipped));
        }
        let mut new = existing.clone();
        for (index, expr) in targets {
            new[*index] = eval(expr, &both, host)?;
        }
        prepare_row(self.rel, self.rules, &mut new, host, RowSource::New)?;
        let interrupts = host.interrupts();
        let interrupted = move || interrupts().is_err();
        let unchanged = |old: &[u8], new: &[u8]| self.indexes.indexed_unchanged(old, new);
        let formed = form_row(&desc, &types, &new);
        let version =
            match heap_update(self.engine, self.heap, txn, tid, &formed, &unchanged, &interrupted)
                .map_err(|e| self.interrupted(e, host))?
            {
                Ok(version) => version,
                Err(_) => return Err(SqlError::internal("tuple concurrently updated")),
            };
        host.env().stats.count_update(self.rel.oid, txn.savepoint_depth(), version.heap_only);
        if !version.heap_only {
            self.indexes.insert(txn, host, &new, version.tid)?;
        }
        let updated = UpdatedRow { old: existing, old_is_own, tid: version.tid, new };
        Ok(Some(Proposed::Updated(updated)))
    }

    /// lock -- locks the conflicting version FOR UPDATE; false when it was
    /// updated or deleted first (READ COMMITTED starts over).
    fn lock(&self, txn: &mut Transaction, host: &mut ExecHost, tid: ItemPointer) -> Result<bool> {
        let target = RowLockTarget { database: host.database(), relation: self.rel.oid, tid };
        let interrupts = host.interrupts();
        let interrupted = move || interrupts().is_err();
        let outcome = heap_lock_tuple(
            self.engine,
            self.heap,
            txn,
            target,
            TupleLockMode::Update,
            LockWaitPolicy::Block,
            &interrupted,
        )
        .map_err(|e| self.interrupted(e, host))?;
        match outcome {
            Ok(()) => Ok(true),
            Err(TmFailure::Invisible | TmFailure::SelfModified)
                if self.inserted_or_updated_by_us(txn, tid)? =>
            {
                Err(affect_row_twice())
            }
            Err(TmFailure::Updated(_) | TmFailure::Deleted | TmFailure::Invisible)
                if txn.isolation() == IsolationLevel::RepeatableRead =>
            {
                Err(serialization_failure())
            }
            Err(TmFailure::Updated(_) | TmFailure::Deleted | TmFailure::Invisible) => Ok(false),
            Err(TmFailure::SelfModified | TmFailure::WouldBlock) => {
                Err(SqlError::internal("unexpected result locking an ON CONFLICT row"))
            }
        }
    }

    /// Whether the version at `tid` was written by this transaction (this
    /// very command, since a lock found it not yet visible to itself).
    fn inserted_or_updated_by_us(&self, txn: &Transaction, tid: ItemPointer) -> Result<bool> {
        let tuple = self.version(tid)?;
        let hdr = sluice_access::common::htup::HeapTupleHeader::new(&tuple[..])
            .map_err(AccessError::from)?;
        Ok(txn.is_current_xid(hdr.xmin()) || txn.is_current_xid(hdr.xmax()))
    }

    /// The version's bytes as they are now.
    fn version(&self, tid: ItemPointer) -> Result<Vec<u8>> {
        let tag = BufferTag::new(self.heap.locator, ForkNumber::Main, tid.block);
        let buffer = self.engine.pool().read_buffer(tag).map_err(AccessError::from)?;
        let page = buffer.read();
        let item =
            page.item(tid.offset).ok_or_else(|| SqlError::internal("ON CONFLICT row vanished"))?;
        Ok(item.to_vec())
    }

    /// Under REPEATABLE READ the conflicting row must be one the
    /// transaction's snapshot sees (PostgreSQL's ExecCheckTIDVisible): a
    /// row committed after it would be acted on unseen.
    fn check_visible(&self, txn: &Transaction, tid: ItemPointer) -> Result<()> {
        if txn.isolation() != IsolationLevel::RepeatableRead {
            return Ok(());
        }
        self.check_visible_tuple(txn, &self.version(tid)?)
    }

    fn check_visible_tuple(&self, txn: &Transaction, tuple: &[u8]) -> Result<()> {
        if txn.isolation() != IsolationLevel::RepeatableRead {
            return Ok(());
        }
        let mut ctx = self.ctx.clone();
        ctx.snapshot.own_xid = txn.xid();
        let hdr =
            sluice_access::common::htup::HeapTupleHeader::new(tuple).map_err(AccessError::from)?;
        if satisfies_mvcc(tuple, &ctx)?.0 || txn.is_current_xid(hdr.xmin()) {
            return Ok(());
        }
        Err(serialization_failure())
    }

    /// The error a wait ended with, as the session reports it (cancel and
    /// timeouts say which).
    fn interrupted(&self, e: AccessError, host: &ExecHost) -> SqlError {
        match e {
            AccessError::Interrupted => host.interrupts()().err().unwrap_or_else(|| e.into()),
            other => other.into(),
        }
    }
}

fn affect_row_twice() -> SqlError {
    SqlError::new("21000", "ON CONFLICT DO UPDATE command cannot affect row a second time").with_hint(
        "Ensure that no rows proposed for insertion within the same command have duplicate constrained values.",
    )
}

fn serialization_failure() -> SqlError {
    SqlError::new("40001", "could not serialize access due to concurrent update")
}
