//! The commit log: the durable status of every transaction id (PostgreSQL's
//! `clog.c`, `pg_xact/`).
//!
//! Two bits per transaction: in progress (00), committed (01), aborted (10) and
//! sub-committed (11, reserved for subtransactions). 32,768 transactions share a
//! page. Changes are made in memory when a transaction ends and reach disk at the
//! next checkpoint; commit and abort WAL records after that checkpoint re-apply
//! them during recovery, so the commit log needs no WAL of its own.
//!
//! "In progress" on disk for a transaction that is not running any more means it
//! was running when the server crashed: it counts as aborted (PostgreSQL's rule
//! too). Whether a transaction is running is the proc array's business, not ours.

use crate::error::Result;
use crate::slru::{Slru, SlruStats};
use sluice_common::Xid;
use sluice_wal::Wal;
use std::path::Path;
use std::sync::Arc;

/// Transactions per commit log page: 8192 bytes × 4 per byte.
const XACTS_PER_PAGE: u64 = 8192 * 4;

/// Commit log pages kept in memory (PostgreSQL's default is comparable: 128
/// pages = 4M transactions, about 1 MB).
const CLOG_BUFFERS: usize = 128;

/// The status recorded for a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XidStatus {
    /// Not finished (or crashed before finishing).
    InProgress = 0,
    /// Committed.
    Committed = 1,
    /// Rolled back.
    Aborted = 2,
    /// A subtransaction whose parent has not finished yet.
    SubCommitted = 3,
}

impl XidStatus {
    fn from_bits(bits: u8) -> XidStatus {
        match bits & 3 {
            0 => XidStatus::InProgress,
            1 => XidStatus::Committed,
            2 => XidStatus::Aborted,
            _ => XidStatus::SubCommitted,
        }
    }
}

/// The commit log.
pub struct Clog {
    slru: Slru,
}

fn locate(xid: Xid) -> (u64, usize, u32) {
    let pageno = xid.0 / XACTS_PER_PAGE;
    let within = xid.0 % XACTS_PER_PAGE;
    (pageno, (within / 4) as usize, ((within % 4) * 2) as u32)
}

impl Clog {
    /// Opens the commit log in `data_dir/pg_xact`.
    pub fn open(data_dir: &Path) -> Result<Clog> {
        Ok(Clog { slru: Slru::open(data_dir.join("pg_xact"), CLOG_BUFFERS)? })
    }

    /// See [`Slru::set_wal`].
    pub fn set_wal(&self, wal: Arc<Wal>) {
        self.slru.set_wal(wal);
    }

    /// The recorded status of `xid`.
    pub fn status(&self, xid: Xid) -> Result<XidStatus> {
        if xid == Xid::BOOTSTRAP || xid == Xid::FROZEN {
            return Ok(XidStatus::Committed);
        }
        let (pageno, byte, shift) = locate(xid);
        self.slru.with_page(pageno, |p| XidStatus::from_bits(p[byte] >> shift))
    }

    /// Records `status` for `xid`.
    pub fn set_status(&self, xid: Xid, status: XidStatus) -> Result<()> {
        let (pageno, byte, shift) = locate(xid);
        self.slru.with_page_mut(pageno, |p| {
            p[byte] = (p[byte] & !(3 << shift)) | ((status as u8) << shift);
        })
    }

    /// Writes every changed page (checkpoint).
    pub fn flush(&self) -> Result<()> {
        self.slru.flush()
    }

    /// Counters for `pg_stat_slru` (row "Xact").
    pub fn stats(&self) -> SlruStats {
        self.slru.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_two_bits_each_and_durable() {
        let dir = tempfile::tempdir().unwrap();
        let clog = Clog::open(dir.path()).unwrap();
        let base = XACTS_PER_PAGE - 2; // straddle a page boundary
        let statuses =
            [XidStatus::Committed, XidStatus::Aborted, XidStatus::InProgress, XidStatus::Committed];
        for (i, s) in statuses.iter().enumerate() {
            clog.set_status(Xid(base + i as u64), *s).unwrap();
        }
        clog.flush().unwrap();
        let reopened = Clog::open(dir.path()).unwrap();
        for (i, s) in statuses.iter().enumerate() {
            assert_eq!(reopened.status(Xid(base + i as u64)).unwrap(), *s);
        }
        assert_eq!(reopened.status(Xid::FROZEN).unwrap(), XidStatus::Committed);
    }
}
