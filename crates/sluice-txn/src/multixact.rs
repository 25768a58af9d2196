//! Multixacts: one xmax standing for several transactions (PostgreSQL's
//! `multixact.c`, `pg_multixact/`).
//!
//! # Why
//!
//! A row's xmax has room for one transaction id, but several transactions
//! may hold a row at once: two FOR SHARE lockers, or a FOR KEY SHARE locker
//! and an UPDATE that changes no key. Such an xmax is a *MultiXactId*
//! (`HEAP_XMAX_IS_MULTI` in the tuple's infomask): the number of an
//! immutable list of members, each an xid with the status it holds the row
//! in ([`MultiXactStatus`]). A new locker never adds itself to a multi; it
//! creates a new one from the surviving members and itself.
//!
//! # Storage
//!
//! Two SLRUs (see `slru.rs`) under the data directory:
//!
//! ```text
//!   pg_multixact/offsets   16 bytes per multi: first member's offset, count
//!   pg_multixact/members   16 bytes per member: xid, status
//! ```
//!
//! Multis and member offsets are 64-bit counters that never wrap, exactly
//! like xids: there is no multixact wraparound and no members-space
//! exhaustion (PostgreSQL's 32-bit `MultiXactId` and `MultiXactOffset` need
//! both, and the anti-wraparound VACUUMs that keep them away). Storing the
//! count beside the offset (PostgreSQL derives it from the next multi's
//! offset) lets a lookup read one offsets entry.
//!
//! # Durability
//!
//! [`MultiXacts::create`] logs an `XLOG_MULTIXACT_CREATE_ID` record (the id,
//! its offset and its members) before it writes the two SLRUs, and the
//! tuple that will carry the id is logged after it, so recovery always
//! re-creates a multi before replaying a row that names it ([`redo`]). The
//! SLRU pages reach disk at checkpoints (and evictions, which flush WAL
//! first); the next-multi and next-offset counters go into the checkpoint
//! record like the next xid.
//!
//! # Reuse
//!
//! A small cache of recently created member sets (PostgreSQL's mXactCache)
//! makes a repeated set — many rows share-locked by the same two
//! transactions — reuse one id instead of creating thousands.
//!
//! # Truncation
//!
//! [`MultiXacts::truncate`] drops the segments wholly below a multi that
//! VACUUM has shown no tuple still names (see `vacuumlazy.rs` for the rule);
//! lookups below it fail as corrupt rather than read zeros.
//!
//! Locking: one mutex serialises creation (counter, WAL insert, SLRU
//! writes, in that order); lookups only take the SLRUs' own mutexes.

use crate::error::{Result, TxnError};
use crate::slru::{Slru, SlruStats};
use parking_lot::Mutex;
use sluice_common::{RmgrId, Xid};
use sluice_wal::{DecodedRecord, RecordBuilder, Wal};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// WAL record type: a multi was created (PostgreSQL's XLOG_MULTIXACT_CREATE_ID).
pub const XLOG_MULTIXACT_CREATE_ID: u8 = 0x20;

/// Bytes of one offsets entry and of one member.
const ENTRY_SIZE: u64 = 16;

/// Entries (offsets or members) per SLRU page.
const PER_PAGE: u64 = sluice_common::BLCKSZ as u64 / ENTRY_SIZE;

/// Pages each SLRU keeps in memory (PostgreSQL's defaults: 8 and 16).
const OFFSET_BUFFERS: usize = 8;
const MEMBER_BUFFERS: usize = 16;

/// Member sets remembered for reuse (PostgreSQL's MAX_CACHE_ENTRIES).
const CACHE_ENTRIES: usize = 256;

/// A multixact id: 64 bits, never wraps, 0 is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MultiXactId(pub u64);

impl MultiXactId {
    /// No multi.
    pub const INVALID: MultiXactId = MultiXactId(0);
    /// The first multi handed out.
    pub const FIRST: MultiXactId = MultiXactId(1);
}

/// How a member holds the row (PostgreSQL's MultiXactStatus), weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MultiXactStatus {
    /// SELECT ... FOR KEY SHARE.
    ForKeyShare = 0,
    /// SELECT ... FOR SHARE.
    ForShare = 1,
    /// SELECT ... FOR NO KEY UPDATE.
    ForNoKeyUpdate = 2,
    /// SELECT ... FOR UPDATE.
    ForUpdate = 3,
    /// An UPDATE that changed no key column.
    NoKeyUpdate = 4,
    /// A DELETE or key-changing UPDATE.
    Update = 5,
}

impl MultiXactStatus {
    fn from_u8(n: u8) -> Option<MultiXactStatus> {
        use MultiXactStatus::*;
        Some(match n {
            0 => ForKeyShare,
            1 => ForShare,
            2 => ForNoKeyUpdate,
            3 => ForUpdate,
            4 => NoKeyUpdate,
            5 => Update,
            _ => return None,
        })
    }

    /// Whether the member changed the row (an update or delete) rather than
    /// only locking it (PostgreSQL's ISUPDATE_from_mxstatus).
    pub fn is_update(self) -> bool {
        matches!(self, MultiXactStatus::NoKeyUpdate | MultiXactStatus::Update)
    }
}

/// One member of a multi.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MultiXactMember {
    /// The member transaction (or subtransaction).
    pub xid: Xid,
    /// How it holds the row.
    pub status: MultiXactStatus,
}

/// The multixact store: the two SLRUs, the counters and the reuse cache.
pub struct MultiXacts {
    offsets: Slru,
    members: Slru,
    /// Serialises creation; holds (next multi, next member offset).
    next: Mutex<(u64, u64)>,
    /// Below this multi the segments may be gone.
    oldest: AtomicU64,
    /// Recently created member sets (sorted) and their ids, newest first.
    cache: Mutex<VecDeque<(Vec<MultiXactMember>, MultiXactId)>>,
}

impl MultiXacts {
    /// open -- the store in `data_dir/pg_multixact`, handing out ids from
    /// `next` on (the checkpoint's counter; recovery raises it).
    pub fn open(data_dir: &Path, next: MultiXactId, next_offset: u64) -> Result<MultiXacts> {
        let dir = data_dir.join("pg_multixact");
        Ok(MultiXacts {
            offsets: Slru::open(dir.join("offsets"), OFFSET_BUFFERS)?,
            members: Slru::open(dir.join("members"), MEMBER_BUFFERS)?,
            next: Mutex::new((next.max(MultiXactId::FIRST).0, next_offset)),
            oldest: AtomicU64::new(MultiXactId::FIRST.0),
            cache: Mutex::new(VecDeque::new()),
        })
    }

    /// Makes SLRU writes wait for WAL (see [`Slru::set_wal`]).
    pub fn set_wal(&self, wal: Arc<Wal>) {
        self.offsets.set_wal(wal.clone());
        self.members.set_wal(wal);
    }

    /// The next multi to be created and the next member offset (for checkpoints).
    pub fn next(&self) -> (MultiXactId, u64) {
        let next = self.next.lock();
        (MultiXactId(next.0), next.1)
    }

    /// The oldest multi whose members can still be read.
    pub fn oldest(&self) -> MultiXactId {
        MultiXactId(self.oldest.load(Ordering::SeqCst))
    }

    /// create -- a multi with exactly `members` (PostgreSQL's
    /// MultiXactIdCreateFromMembers): a cached one with the same set, or a
    /// new one, WAL-logged as `xid` (the creating transaction's) before its
    /// pages change.
    pub fn create(&self, wal: &Wal, xid: Xid, members: &[MultiXactMember]) -> Result<MultiXactId> {
        let mut sorted = members.to_vec();
        sorted.sort();
        sorted.dedup();
        if let Some(id) = self.cached(&sorted) {
            return Ok(id);
        }
        let id = {
            let mut next = self.next.lock();
            let (id, offset) = (MultiXactId(next.0), next.1);
            let data = encode_create(id, offset, &sorted);
            wal.insert(
                &RecordBuilder::new(RmgrId::MultiXact, XLOG_MULTIXACT_CREATE_ID, xid)
                    .with_main_data(data),
            )?;
            self.write(id, offset, &sorted)?;
            *next = (id.0 + 1, offset + sorted.len() as u64);
            id
        };
        let mut cache = self.cache.lock();
        cache.push_front((sorted, id));
        cache.truncate(CACHE_ENTRIES);
        Ok(id)
    }

    fn cached(&self, sorted: &[MultiXactMember]) -> Option<MultiXactId> {
        let oldest = self.oldest();
        let cache = self.cache.lock();
        cache.iter().find(|(m, id)| m == sorted && *id >= oldest).map(|(_, id)| *id)
    }

    /// Writes the offsets entry and the members of `id`.
    fn write(&self, id: MultiXactId, offset: u64, members: &[MultiXactMember]) -> Result<()> {
        for (i, m) in members.iter().enumerate() {
            let (page, at) = locate(offset + i as u64);
            self.members.with_page_mut(page, |p| {
                p[at..at + 8].copy_from_slice(&m.xid.0.to_le_bytes());
                p[at + 8] = m.status as u8;
            })?;
        }
        let (page, at) = locate(id.0);
        self.offsets.with_page_mut(page, |p| {
            p[at..at + 8].copy_from_slice(&offset.to_le_bytes());
            p[at + 8..at + 16].copy_from_slice(&(members.len() as u64).to_le_bytes());
        })
    }

    /// members -- the members of `id` (PostgreSQL's GetMultiXactIdMembers).
    pub fn members(&self, id: MultiXactId) -> Result<Vec<MultiXactMember>> {
        if id < self.oldest() || id.0 >= self.next.lock().0 {
            return Err(TxnError::Corrupt(format!(
                "MultiXactId {} is no longer valid or not yet created",
                id.0
            )));
        }
        let (page, at) = locate(id.0);
        let (offset, count) =
            self.offsets.with_page(page, |p| (u64_at(p, at), u64_at(p, at + 8)))?;
        (offset..offset + count)
            .map(|o| {
                let (page, at) = locate(o);
                let (xid, status) = self.members.with_page(page, |p| (u64_at(p, at), p[at + 8]))?;
                let status = MultiXactStatus::from_u8(status).ok_or_else(|| {
                    TxnError::Corrupt(format!("invalid status of a member of MultiXactId {}", id.0))
                })?;
                Ok(MultiXactMember { xid: Xid(xid), status })
            })
            .collect()
    }

    /// redo -- replays a creation record: rewrites both SLRUs (idempotent)
    /// and raises the counters past it.
    pub fn redo(&self, record: &DecodedRecord) -> Result<()> {
        let (id, offset, members) = decode_create(&record.main_data)?;
        self.write(id, offset, &members)?;
        self.advance(MultiXactId(id.0 + 1), offset + members.len() as u64);
        Ok(())
    }

    /// advance -- raises the counters to at least `next` and `next_offset`
    /// (recovery, from the checkpoint it starts at).
    pub fn advance(&self, next: MultiXactId, next_offset: u64) {
        let mut counters = self.next.lock();
        counters.0 = counters.0.max(next.0);
        counters.1 = counters.1.max(next_offset);
    }

    /// Writes every changed page of both SLRUs (checkpoint).
    pub fn flush(&self) -> Result<()> {
        self.offsets.flush()?;
        self.members.flush()
    }

    /// truncate -- forgets every multi below `oldest` and its members,
    /// removing the segment files wholly below them. The caller guarantees
    /// no tuple names such a multi any more.
    pub fn truncate(&self, oldest: MultiXactId) -> Result<()> {
        let next = self.next().0;
        let oldest = oldest.min(next);
        if oldest <= self.oldest() {
            return Ok(());
        }
        // Members of `oldest` start at its offset (or, if it does not exist
        // yet, at the next offset).
        let first_member = if oldest < next {
            let (page, at) = locate(oldest.0);
            self.offsets.with_page(page, |p| u64_at(p, at))?
        } else {
            self.next().1
        };
        self.oldest.store(oldest.0, Ordering::SeqCst);
        self.offsets.truncate_below(locate(oldest.0).0)?;
        self.members.truncate_below(locate(first_member).0)
    }

    /// Counters for `pg_stat_slru` rows "MultiXactOffset" and "MultiXactMember".
    pub fn stats(&self) -> (SlruStats, SlruStats) {
        (self.offsets.stats(), self.members.stats())
    }
}

/// The page and byte offset of entry `n` of either SLRU.
fn locate(n: u64) -> (u64, usize) {
    (n / PER_PAGE, ((n % PER_PAGE) * ENTRY_SIZE) as usize)
}

fn u64_at(p: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(p[at..at + 8].try_into().expect("8 bytes"))
}

/// The main data of a creation record: id, offset, count, then per member
/// its xid and status.
fn encode_create(id: MultiXactId, offset: u64, members: &[MultiXactMember]) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + 9 * members.len());
    out.extend_from_slice(&id.0.to_le_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&(members.len() as u64).to_le_bytes());
    for m in members {
        out.extend_from_slice(&m.xid.0.to_le_bytes());
        out.push(m.status as u8);
    }
    out
}

fn decode_create(data: &[u8]) -> Result<(MultiXactId, u64, Vec<MultiXactMember>)> {
    let bad = || TxnError::Corrupt("invalid MULTIXACT_CREATE_ID record".into());
    if data.len() < 24 {
        return Err(bad());
    }
    let count = u64_at(data, 16) as usize;
    if data.len() != 24 + 9 * count {
        return Err(bad());
    }
    let members = (0..count)
        .map(|i| {
            let at = 24 + 9 * i;
            let status = MultiXactStatus::from_u8(data[at + 8]).ok_or_else(bad)?;
            Ok(MultiXactMember { xid: Xid(u64_at(data, at)), status })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((MultiXactId(u64_at(data, 0)), u64_at(data, 8), members))
}

#[cfg(test)]
mod tests {
    use super::MultiXactStatus::*;
    use super::*;
    use sluice_common::Lsn;
    use sluice_wal::{WalOptions, WalReader, FIRST_LSN};

    fn member(xid: u64, status: MultiXactStatus) -> MultiXactMember {
        MultiXactMember { xid: Xid(xid), status }
    }

    fn open_wal(dir: &Path) -> Wal {
        Wal::open(&dir.join("pg_wal"), FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions::default())
            .unwrap()
    }

    #[test]
    fn create_lookup_and_reuse() {
        let dir = tempfile::tempdir().unwrap();
        let wal = open_wal(dir.path());
        let mx = MultiXacts::open(dir.path(), MultiXactId::FIRST, 0).unwrap();
        let a = mx.create(&wal, Xid(10), &[member(11, ForShare), member(10, ForShare)]).unwrap();
        let b =
            mx.create(&wal, Xid(12), &[member(12, NoKeyUpdate), member(10, ForKeyShare)]).unwrap();
        assert_eq!((a, b), (MultiXactId(1), MultiXactId(2)));
        assert_eq!(mx.members(a).unwrap(), vec![member(10, ForShare), member(11, ForShare)]);
        assert_eq!(mx.members(b).unwrap(), vec![member(10, ForKeyShare), member(12, NoKeyUpdate)]);
        let again =
            mx.create(&wal, Xid(11), &[member(10, ForShare), member(11, ForShare)]).unwrap();
        assert_eq!(again, a, "a repeated member set reuses its multi");
        assert!(mx.members(MultiXactId(3)).is_err(), "not created yet");
        assert_eq!(mx.next(), (MultiXactId(3), 4));
    }

    #[test]
    fn many_multis_survive_eviction_flush_and_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let wal = open_wal(dir.path());
        let mx = MultiXacts::open(dir.path(), MultiXactId::FIRST, 0).unwrap();
        let ids: Vec<_> = (0..20_000u64)
            .map(|i| {
                mx.create(&wal, Xid(100 + i), &[member(100 + i, ForKeyShare), member(1, Update)])
            })
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(mx.members(ids[7]).unwrap()[1], member(107, ForKeyShare));
        mx.flush().unwrap();
        let reopened = MultiXacts::open(dir.path(), mx.next().0, mx.next().1).unwrap();
        assert_eq!(reopened.members(ids[19_999]).unwrap()[1], member(20_099, ForKeyShare));
        reopened.truncate(ids[17_000]).unwrap();
        assert!(reopened.members(ids[0]).is_err());
        assert_eq!(reopened.members(ids[17_000]).unwrap()[1], member(17_100, ForKeyShare));
        assert!(!dir.path().join("pg_multixact/offsets/000000000000").exists());
    }

    #[test]
    fn creation_is_replayed_from_wal() {
        let dir = tempfile::tempdir().unwrap();
        let wal = open_wal(dir.path());
        let mx = MultiXacts::open(dir.path(), MultiXactId::FIRST, 0).unwrap();
        let id = mx.create(&wal, Xid(5), &[member(5, ForShare), member(6, ForUpdate)]).unwrap();
        wal.flush(wal.insert_lsn()).unwrap();
        // A crash before any checkpoint: the SLRU pages never reached disk.
        let fresh = tempfile::tempdir().unwrap();
        let replayed = MultiXacts::open(fresh.path(), MultiXactId::FIRST, 0).unwrap();
        let mut reader = WalReader::new(&dir.path().join("pg_wal"), FIRST_LSN);
        while let Some(record) = reader.next_record().unwrap() {
            replayed.redo(&record).unwrap();
        }
        assert_eq!(replayed.members(id).unwrap(), vec![member(5, ForShare), member(6, ForUpdate)]);
        assert_eq!(replayed.next(), (MultiXactId(2), 2));
    }
}
