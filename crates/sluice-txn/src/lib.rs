//! Transactions: who sees what, and when it becomes permanent.
//!
//! This crate is sluice's `access/transam` + `storage/ipc/procarray` +
//! `utils/time/snapmgr`:
//!
//! * [`xact`] — transactions: lazy 64-bit xids, commit (WAL, commit log, CSN),
//!   constant-time rollback, snapshots per statement or per transaction.
//! * [`clog`] (on [`slru`]) — the durable two-bit status of every xid.
//! * [`csnlog`] — the in-memory commit sequence numbers that make a snapshot a
//!   single number, so no number of (sub)transactions makes snapshots expensive.
//! * [`procarray`] — running transactions and live snapshots; the horizon.
//! * [`xidwait`] — sleeping until another transaction ends.
//!
//! Transaction ids are 64 bits and never wrap (see `sluice_common::Xid`): there is
//! no freezing deadline and no anti-wraparound VACUUM.

pub mod clog;
pub mod combocid;
pub mod csnlog;
mod error;
pub mod procarray;
pub mod slru;
pub mod snapshot;
pub mod xact;
pub mod xidwait;

pub use clog::{Clog, XidStatus};
pub use combocid::ComboCids;
pub use csnlog::Csn;
pub use error::{Result, TxnError};
pub use procarray::{Horizon, ProcId, ProcState};
pub use snapshot::{CommandId, Snapshot};
pub use xact::{Backend, IsolationLevel, SynchronousCommit, Transaction, TransactionManager};
