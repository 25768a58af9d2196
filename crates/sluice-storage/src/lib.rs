//! Storage: relation files, 8 KB pages and the bounded buffer pool.
//!
//! This crate is the bottom of sluice's data path (PostgreSQL's `storage/`):
//!
//! * [`page`] — the slotted page layout every relation fork uses, with checksums.
//! * [`smgr`] — relation forks as 1 GB segment files of pages under the data
//!   directory; positional I/O; fsync at checkpoints.
//! * [`freespace`] — the free space map (`_fsm` fork): a byte per heap page
//!   saying roughly how much room it has.
//! * [`buffer`] — the buffer pool: `shared_buffers` worth of page frames, pinning,
//!   content locks, clock-sweep replacement, rings for bulk reads, and the
//!   WAL-before-data rule.
//!
//! The WAL itself lives in `sluice-wal`; this crate only asks it to flush before a
//! dirty page is written.

pub mod buffer;
mod error;
pub mod freespace;
pub mod page;
pub mod smgr;

pub use error::{Result, StorageError};
