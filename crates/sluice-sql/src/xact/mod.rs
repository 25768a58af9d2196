//! A backend's transaction state: the transaction and one resource owner per
//! open level (PostgreSQL's `TransactionState` stack in `xact.c`, with
//! `resowner.c`'s owners).
//!
//! # Levels
//!
//! Level 0 is the top-level transaction; every subtransaction pushes one.
//! A subtransaction is either a user's savepoint (`SAVEPOINT`, `RELEASE`,
//! `ROLLBACK TO`, driven by the session's transaction-block state machine)
//! or an internal one (PostgreSQL's `BeginInternalSubTransaction`, which a
//! PL/pgSQL `EXCEPTION` block will open), which has no name and ends with
//! [`TransactionState::release_subtransaction`] or
//! [`TransactionState::rollback_subtransaction`]: released, it merges into
//! its parent; rolled back, it is undone and gone. Both kinds share one
//! stack, so either can be opened at any depth, inside the other.
//!
//! Ending a level touches four things: the transaction's own levels (xids
//! and locks, `sluice-txn`), the level's [`resowner::ResourceOwner`]
//! (pending file deletes and end-of-transaction work), the settings' nest
//! levels (a SET inside a rolled-back level is undone) and the statistics'
//! levels (`PendingStats`). The last two belong to the backend, not the
//! transaction, so those calls take them in an [`XactEnv`].
//!
//! # Invariants
//!
//! `owners.len() == txn.savepoint_depth() + 1` at every return, and the
//! settings' nest level of subtransaction `d` is `owners[d].nest_level`.

pub mod after_trigger;
mod resowner;

use crate::error::{Result, SqlError};
use after_trigger::AfterTriggers;
use resowner::{end_of_transaction, PendingDelete, ResourceOwner};
use sluice_access::pgstat::PendingStats;
use sluice_access::Engine;
use sluice_common::{Oid, RelFileLocator};
use sluice_guc::SessionSettings;
use sluice_txn::{PrepareContext, SavepointError, Transaction, TwoPhaseError};
use std::ops::{Deref, DerefMut};

/// The backend-wide state a level's end updates besides the transaction.
pub struct XactEnv<'a> {
    /// The storage engine (files, statistics table).
    pub engine: &'a Engine,
    /// The backend's settings, whose nest levels follow the transaction's.
    pub settings: &'a mut SessionSettings,
    /// The backend's pending statistics, flushed at transaction end.
    pub stats: &'a mut PendingStats,
    /// The database the statistics are flushed for.
    pub database: Oid,
}

/// A running transaction with its resource owners (see the module doc).
pub struct TransactionState {
    txn: Transaction,
    /// One per level, the top level first.
    owners: Vec<ResourceOwner>,
    /// Foreign-key events waiting for their query's end or for commit
    /// (`after_trigger.rs`); its levels follow the owners'.
    pub after_triggers: AfterTriggers,
}

impl Deref for TransactionState {
    type Target = Transaction;

    fn deref(&self) -> &Transaction {
        &self.txn
    }
}

impl DerefMut for TransactionState {
    fn deref_mut(&mut self) -> &mut Transaction {
        &mut self.txn
    }
}

impl TransactionState {
    /// The state of `txn`, just begun (settings' transaction level open).
    pub fn new(txn: Transaction) -> TransactionState {
        TransactionState {
            txn,
            owners: vec![ResourceOwner::default()],
            after_triggers: AfterTriggers::default(),
        }
    }

    /// The open subtransaction depth (0 at the top level).
    pub fn depth(&self) -> usize {
        self.owners.len() - 1
    }

    fn current_owner(&mut self) -> &mut ResourceOwner {
        self.owners.last_mut().expect("the top level always has an owner")
    }

    /// define_savepoint -- SAVEPOINT `name` (DefineSavepoint).
    pub fn define_savepoint(&mut self, name: &str, settings: &mut SessionSettings) {
        self.txn.savepoint(name);
        self.owners.push(ResourceOwner::for_subtransaction(settings.push_nest_level()));
        self.after_triggers.begin_subtransaction(self.depth());
    }

    /// begin_subtransaction -- BeginInternalSubTransaction: a nameless level
    /// inside whatever is open, for the executor's own use.
    pub fn begin_subtransaction(&mut self, settings: &mut SessionSettings) {
        self.define_savepoint("", settings);
    }

    /// release_savepoint -- RELEASE `name`: it and every level above merge
    /// into the enclosing one.
    pub fn release_savepoint(
        &mut self,
        name: &str,
        env: &mut XactEnv,
    ) -> std::result::Result<(), SavepointError> {
        let depth = self.txn.release(name)?;
        self.merge_from(depth, env);
        Ok(())
    }

    /// release_subtransaction -- ReleaseCurrentSubTransaction: the innermost
    /// level merges into its parent.
    pub fn release_subtransaction(
        &mut self,
        env: &mut XactEnv,
    ) -> std::result::Result<(), SavepointError> {
        let depth = self.txn.release_innermost()?;
        self.merge_from(depth, env);
        Ok(())
    }

    /// merge_from -- the levels `depth..` ended by commit into `depth - 1`.
    fn merge_from(&mut self, depth: usize, env: &mut XactEnv) {
        let ended = self.owners.split_off(depth);
        let level = ended[0].nest_level.expect("a subtransaction's owner has a nest level");
        for owner in ended {
            self.current_owner().absorb(owner);
        }
        env.settings.pop_nest_level(level, true);
        env.stats.end_savepoints(depth, true);
        self.after_triggers.release_subtransaction(depth);
    }

    /// rollback_to_savepoint -- ROLLBACK TO `name`: everything since the
    /// savepoint is undone and the savepoint opens again, empty.
    pub fn rollback_to_savepoint(
        &mut self,
        name: &str,
        env: &mut XactEnv,
    ) -> std::result::Result<(), SavepointError> {
        let depth = self.txn.rollback_to(name)?;
        self.undo_from(depth, env);
        self.owners.push(ResourceOwner::for_subtransaction(env.settings.push_nest_level()));
        self.after_triggers.begin_subtransaction(depth);
        Ok(())
    }

    /// rollback_subtransaction -- RollbackAndReleaseCurrentSubTransaction:
    /// the innermost level is undone and ends.
    pub fn rollback_subtransaction(
        &mut self,
        env: &mut XactEnv,
    ) -> std::result::Result<(), SavepointError> {
        let depth = self.txn.rollback_innermost()?;
        self.undo_from(depth, env);
        Ok(())
    }

    /// undo_from -- the levels `depth..` were aborted in the transaction:
    /// their owners are undone, their settings and statistics rolled back.
    fn undo_from(&mut self, depth: usize, env: &mut XactEnv) {
        let ended = self.owners.split_off(depth);
        let level = ended[0].nest_level.expect("a subtransaction's owner has a nest level");
        for owner in ended.into_iter().rev() {
            owner.undo(env.engine);
        }
        env.settings.pop_nest_level(level, false);
        env.stats.end_savepoints(depth, false);
        self.after_triggers.rollback_subtransaction(depth);
    }

    /// abort_current_level -- an error inside a subtransaction: its work is
    /// aborted at once (locks, rows, statistics); the level itself stays
    /// until ROLLBACK TO or ROLLBACK ends it.
    pub fn abort_current_level(&mut self, stats: &mut PendingStats) {
        let depth = self.depth();
        if depth > 0 {
            stats.end_savepoints(depth, false);
            self.txn.abort_current_level();
        }
    }

    /// commit -- commits the transaction and ends every level by the commit
    /// rules (a failed commit ends them by the abort rules).
    pub fn commit(self, env: &mut XactEnv) -> Result<()> {
        let TransactionState { txn, owners, .. } = self;
        let result = txn.commit();
        end_levels(owners, result.is_ok(), env);
        result.map_err(SqlError::from)
    }

    /// rollback -- aborts the transaction and ends every level.
    pub fn rollback(self, env: &mut XactEnv) {
        let TransactionState { txn, owners, .. } = self;
        txn.rollback();
        end_levels(owners, false, env);
    }

    /// prepare -- PREPARE TRANSACTION: the transaction leaves the backend.
    /// Files it would remove at its end stay in place (a leak, never a loss:
    /// pending deletions are not handed to the prepared transaction yet).
    /// A refused prepare rolls back.
    pub fn prepare(self, cx: &PrepareContext, env: &mut XactEnv) -> Result<()> {
        let TransactionState { txn, owners, .. } = self;
        match txn.prepare(cx) {
            Ok(Ok(())) => {
                end_levels(Vec::new(), true, env);
                Ok(())
            }
            Ok(Err(e)) => {
                end_levels(owners, false, env);
                Err(e.into())
            }
            Err(refused) => {
                let (txn, refusal) = *refused;
                txn.rollback();
                end_levels(owners, false, env);
                Err(two_phase_error(refusal))
            }
        }
    }

    /// delete_on_abort -- removes `locator`'s files if the level aborts.
    pub fn delete_on_abort(&mut self, locator: RelFileLocator) {
        let pending = PendingDelete { locator, at_commit: false, unseen_after: None };
        self.current_owner().pending_deletes.push(pending);
    }

    /// delete_on_commit -- removes `locator`'s files once the transaction commits.
    pub fn delete_on_commit(&mut self, locator: RelFileLocator) {
        let pending = PendingDelete { locator, at_commit: true, unseen_after: None };
        self.current_owner().pending_deletes.push(pending);
    }

    /// keep_until_unseen -- `locator`, registered with
    /// [`TransactionState::delete_on_commit`], was swapped for a copy with
    /// the same rows (VACUUM FULL, CLUSTER, REINDEX): after commit it stays
    /// until no snapshot older than this transaction remains, since such a
    /// snapshot still reads the old `pg_class` row and so this file
    /// (`Engine::unlink_when_unseen`).
    pub fn keep_until_unseen(&mut self, locator: RelFileLocator) {
        let xid = self.txn.xid();
        let owned = self.owners.iter_mut().flat_map(|o| o.pending_deletes.iter_mut());
        for pending in owned.filter(|p| p.at_commit && p.locator == locator) {
            pending.unseen_after = xid;
        }
    }

    /// at_transaction_end -- runs `action` once the transaction commits
    /// (`at_commit`) or aborts (DROP/CREATE DATABASE's directory work); an
    /// abort of the current level runs the at-abort ones at once.
    pub fn at_transaction_end(
        &mut self,
        at_commit: bool,
        action: impl FnOnce(&Engine) + Send + 'static,
    ) {
        self.current_owner().actions.push((at_commit, Box::new(action)));
    }
}

/// end_levels -- the transaction ended: settings and statistics end with
/// it, statistics are flushed, and the owners' files and work are done.
fn end_levels(owners: Vec<ResourceOwner>, committed: bool, env: &mut XactEnv) {
    env.settings.end_transaction(committed);
    env.stats.end_transaction(committed);
    env.engine.stats().flush(env.database, env.stats);
    end_of_transaction(owners, committed, env.engine);
}

/// A refused two-phase command, with PostgreSQL's hint.
pub(crate) fn two_phase_error(refusal: TwoPhaseError) -> SqlError {
    let error = SqlError::new(refusal.code, refusal.message);
    match refusal.hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}
