//! Transactions: who sees what, and when it becomes permanent.
//!
//! This crate is sluice's `access/transam` + `storage/ipc/procarray` +
//! `utils/time/snapmgr`:
//!
//! * [`xact`] — transactions: lazy 64-bit xids, commit (WAL, commit log, CSN),
//!   constant-time rollback, snapshots per statement or per transaction.
//! * [`clog`] (on [`slru`]) — the durable two-bit status of every xid.
//! * [`multixact`] (on [`slru`]) — 64-bit multixact ids: one row xmax for
//!   several lockers (and at most one updater).
//! * [`csnlog`] — the in-memory commit sequence numbers that make a snapshot a
//!   single number, so no number of (sub)transactions makes snapshots expensive.
//! * `inval` — whether a cached copy of the catalogs may be reused under a
//!   snapshot (catalog-changing commits recorded by CSN).
//! * [`procarray`] — running transactions and live snapshots; the horizon.
//! * [`lmgr`] — the heavyweight lock manager: table, transaction-id, tuple and
//!   object locks in PostgreSQL's eight modes, FIFO wait queues, `lock_timeout`,
//!   deadlock detection, `pg_locks`. Waiting for another transaction to end is
//!   waiting for a lock on its xid, so row-lock waits take part in deadlock
//!   detection.
//!
//! Transaction ids are 64 bits and never wrap (see `sluice_common::Xid`): there is
//! no freezing deadline and no anti-wraparound VACUUM.

pub mod clog;
pub mod combocid;
pub mod csnlog;
mod error;
mod inval;
pub mod lmgr;
pub mod multixact;
pub mod procarray;
pub mod slru;
pub mod snapshot;
pub mod xact;

pub use clog::{Clog, XidStatus};
pub use combocid::ComboCids;
pub use csnlog::Csn;
pub use error::{Result, TxnError};
pub use inval::CatalogChanges;
pub use multixact::{MultiXactId, MultiXactMember, MultiXactStatus, MultiXacts};
pub use procarray::{Horizon, ProcId, ProcState};
pub use snapshot::{CommandId, Snapshot};
pub use xact::subxact::{LevelLocks, OwnXids, SavepointError};
pub use xact::twophase::{PrepareContext, PreparedInfo, TwoPhaseError};
pub use xact::{Backend, IsolationLevel, SynchronousCommit, Transaction, TransactionManager};
