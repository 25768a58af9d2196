//! Snapshots: which committed transactions a statement or transaction sees.
//!
//! A snapshot is a CSN (see `csnlog.rs`) plus two transaction ids that let most
//! checks skip the CSN log:
//!
//! * `xmin`: every id below it had finished when the snapshot was taken, so for
//!   those "committed" (from a hint bit or the commit log) means "visible".
//! * `xmax`: the next id to be assigned at the time; kept for display
//!   (`pg_current_snapshot()`), not for visibility, which the CSN decides.
//!
//! Under READ COMMITTED a transaction takes a new snapshot for every statement;
//! under REPEATABLE READ it keeps its first one. Its own changes are recognised by
//! its xid and command id, which the heap visibility rules check before asking the
//! snapshot (`sluice-access`'s `heap::visibility`).

use crate::csnlog::Csn;
use sluice_common::Xid;

/// Command ids order the statements of one transaction (PostgreSQL's CommandId).
pub type CommandId = u32;

/// "No command id": used where a command id does not matter.
pub const INVALID_COMMAND_ID: CommandId = u32::MAX;

/// An MVCC snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// All ids below this had finished when the snapshot was taken.
    pub xmin: Xid,
    /// The next id to be assigned when the snapshot was taken.
    pub xmax: Xid,
    /// Transactions that committed with a smaller CSN are visible.
    pub csn: Csn,
    /// The taking transaction's own id, if it has one (its changes are judged by
    /// command id instead).
    pub own_xid: Option<Xid>,
    /// Changes by the own transaction with a smaller command id are visible.
    pub curcid: CommandId,
    /// The own transaction has written catalog rows, so what it reads of the
    /// catalogs is its alone and must not go through shared caches (`inval.rs`).
    pub wrote_catalog: bool,
}

impl Snapshot {
    /// Whether `xid` is the snapshot owner's transaction.
    pub fn is_own(&self, xid: Xid) -> bool {
        self.own_xid == Some(xid)
    }
}
