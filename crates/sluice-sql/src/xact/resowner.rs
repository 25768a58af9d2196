//! Resource owners: what one (sub)transaction level must give back or undo
//! when it ends (PostgreSQL's `utils/resowner`, for the resources the SQL
//! layer registers).
//!
//! Each level of a [`super::TransactionState`] has one owner. It holds the
//! relation files to remove when the transaction ends (PostgreSQL's pending
//! deletes: a created relation's file goes if the transaction aborts, a
//! dropped one's only once it commits), work for the transaction's end (a
//! database directory to remove), and the settings nesting level the
//! subtransaction opened. The other per-level resources live where they are
//! counted: heavyweight locks in the transaction's lock log (`sluice-txn`'s
//! `subxact.rs`, advisory transaction locks among them), statistics in
//! `PendingStats`, whose levels follow the same depth.
//!
//! When a subtransaction commits (RELEASE) its owner is merged into its
//! parent's: nothing happens until the transaction ends. When it aborts
//! (ROLLBACK TO, or an internal subtransaction rolled back) its owner is
//! undone at once: the files it created are removed, its at-abort work runs,
//! and its at-commit work is forgotten, since that commit will never come.

use sluice_access::Engine;
use sluice_common::{ForkNumber, RelFileLocator, Xid};
use sluice_guc::NestLevel;

/// A file to remove when the transaction ends one way or the other.
pub(super) struct PendingDelete {
    pub(super) locator: RelFileLocator,
    /// Remove at commit (a dropped table) rather than at abort (a created one).
    pub(super) at_commit: bool,
    /// At commit, keep the file until no snapshot older than this xid (the
    /// transaction's) remains: a file swapped for a rewritten copy.
    pub(super) unseen_after: Option<Xid>,
}

/// Work for the end of the transaction beyond removing relation files:
/// whether it runs at commit (else at abort), and what.
pub(super) type PendingAction = (bool, Box<dyn FnOnce(&Engine) + Send>);

/// What one level owns (see the module doc).
#[derive(Default)]
pub(super) struct ResourceOwner {
    pub(super) pending_deletes: Vec<PendingDelete>,
    pub(super) actions: Vec<PendingAction>,
    /// The settings nesting level the subtransaction opened; `None` for the
    /// top level, whose level the transaction start opened.
    pub(super) nest_level: Option<NestLevel>,
}

impl ResourceOwner {
    /// An owner for a subtransaction that opened settings level `nest_level`.
    pub(super) fn for_subtransaction(nest_level: NestLevel) -> ResourceOwner {
        ResourceOwner { nest_level: Some(nest_level), ..ResourceOwner::default() }
    }

    /// absorb -- a committed child's resources become this level's.
    pub(super) fn absorb(&mut self, child: ResourceOwner) {
        self.pending_deletes.extend(child.pending_deletes);
        self.actions.extend(child.actions);
    }

    /// undo -- the level aborted before the transaction ends: the files it
    /// created go now, its at-abort work runs, its at-commit work is dropped.
    pub(super) fn undo(self, engine: &Engine) {
        for pending in self.pending_deletes.into_iter().filter(|p| !p.at_commit) {
            remove_files(engine, pending.locator);
        }
        for (_, action) in self.actions.into_iter().filter(|a| !a.0) {
            action(engine);
        }
    }
}

/// end_of_transaction -- the transaction ended (`committed` or not): every
/// level's files and work, files first.
pub(super) fn end_of_transaction(owners: Vec<ResourceOwner>, committed: bool, engine: &Engine) {
    let mut actions = Vec::new();
    for owner in owners {
        for pending in owner.pending_deletes {
            if let (true, Some(xid)) = (committed && pending.at_commit, pending.unseen_after) {
                engine.unlink_when_unseen(pending.locator, xid);
            } else if pending.at_commit == committed {
                remove_files(engine, pending.locator);
            }
        }
        actions.extend(owner.actions);
    }
    for (at_commit, action) in actions {
        if at_commit == committed {
            action(engine);
        }
    }
    // This transaction's snapshot may have been the last one that could
    // read a swapped-out file.
    engine.sweep_unseen();
}

/// Drops a relation's buffers and removes its files. A file that cannot be
/// removed only wastes space; the transaction's outcome stands.
fn remove_files(engine: &Engine, locator: RelFileLocator) {
    for fork in ForkNumber::ALL {
        engine.pool().drop_relation_buffers(locator, fork, 0);
    }
    let _ = engine.pool().smgr().unlink(locator);
}
