//! The proc array: one slot per backend, saying which transaction it runs and
//! which snapshot it holds (PostgreSQL's `procarray.c`).
//!
//! It answers two questions:
//!
//! * For a new snapshot: what is the oldest transaction still running (`xmin`)?
//! * For pruning and VACUUM: what is the **horizon** — the oldest xid and the
//!   oldest CSN that any running transaction or live snapshot may still need? A
//!   row version deleted by a transaction that committed before the horizon CSN
//!   is dead to everybody and may be removed.
//!
//! # Locking
//!
//! Each backend writes only its own slot (atomics). The `lock` is a reader-writer
//! lock: snapshots and xid assignment take it shared; transaction end and horizon
//! computation take it exclusive. Because ending requires the exclusive lock, the
//! set of running transactions cannot change while a snapshot is being computed,
//! and a horizon computed under the exclusive lock sees every snapshot that was
//! published (a snapshot publishes its xmin/CSN before releasing the shared lock).
//!
//! Xid assignment additionally holds `xid_gen` while it takes the next id and
//! publishes it in its slot, and snapshots read `next_xid` under `xid_gen`: so
//! every id below a snapshot's `xmax` is either visible in a slot or finished.

use crate::csnlog::Csn;
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use sluice_common::Xid;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// A backend's slot number.
pub type ProcId = usize;

/// One backend's published state. Zero means "none" in every field.
#[derive(Default)]
pub struct ProcSlot {
    in_use: AtomicBool,
    /// The backend's process id as clients see it (`pg_backend_pid()`).
    pid: AtomicU32,
    /// The top-level xid of its running transaction.
    xid: AtomicU64,
    /// The xmin of its oldest live snapshot (`backend_xmin`).
    xmin: AtomicU64,
    /// The CSN of its oldest live snapshot.
    csn: AtomicU64,
    /// How many live subxids its transaction has (monitoring only: nobody
    /// resolves subxids through the proc array, see `xact/subxact.rs`).
    subxacts: AtomicU32,
}

/// The oldest state anyone may still need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Horizon {
    /// No running transaction or live snapshot needs anything older than this
    /// xid to look in progress (PostgreSQL's OldestXmin).
    pub xmin: Xid,
    /// Versions deleted by transactions that committed with a smaller CSN are
    /// invisible to every live and future snapshot.
    pub csn: Csn,
}

/// What `pg_stat_activity` shows of a backend's transaction state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcState {
    /// Slot number.
    pub proc: ProcId,
    /// Backend process id.
    pub pid: u32,
    /// `backend_xid`.
    pub xid: Option<Xid>,
    /// `backend_xmin`.
    pub xmin: Option<Xid>,
    /// Live subxids of its transaction (`pg_stat_get_backend_subxact`).
    pub subxacts: u32,
}

/// The proc array. See the module doc.
pub struct ProcArray {
    slots: Box<[ProcSlot]>,
    free: Mutex<Vec<ProcId>>,
    lock: RwLock<()>,
    /// Held while an xid is assigned and published, and while `next_xid` is read
    /// for a snapshot (PostgreSQL's XidGenLock).
    pub(crate) xid_gen: Mutex<()>,
}

impl ProcArray {
    /// A proc array with room for `max_backends` backends.
    pub fn new(max_backends: usize) -> ProcArray {
        ProcArray {
            slots: (0..max_backends).map(|_| ProcSlot::default()).collect(),
            free: Mutex::new((0..max_backends).rev().collect()),
            lock: RwLock::new(()),
            xid_gen: Mutex::new(()),
        }
    }

    /// Claims a slot for backend `pid`, or `None` if all are taken.
    pub fn register(&self, pid: u32) -> Option<ProcId> {
        let id = self.free.lock().pop()?;
        let slot = &self.slots[id];
        slot.pid.store(pid, Ordering::Relaxed);
        slot.xid.store(0, Ordering::Relaxed);
        slot.xmin.store(0, Ordering::Relaxed);
        slot.csn.store(0, Ordering::Relaxed);
        slot.subxacts.store(0, Ordering::Relaxed);
        slot.in_use.store(true, Ordering::Release);
        Some(id)
    }

    /// Releases slot `id`.
    pub fn unregister(&self, id: ProcId) {
        let _guard = self.lock.write();
        let slot = &self.slots[id];
        slot.in_use.store(false, Ordering::Release);
        slot.xid.store(0, Ordering::Relaxed);
        slot.xmin.store(0, Ordering::Relaxed);
        slot.csn.store(0, Ordering::Relaxed);
        self.free.lock().push(id);
    }

    /// Takes the shared lock (snapshots, xid assignment).
    pub(crate) fn shared(&self) -> RwLockReadGuard<'_, ()> {
        self.lock.read()
    }

    /// Takes the exclusive lock (transaction end, horizon).
    pub(crate) fn exclusive(&self) -> RwLockWriteGuard<'_, ()> {
        self.lock.write()
    }

    /// Publishes `xid` as running in slot `id`. Caller holds `xid_gen`.
    pub(crate) fn set_xid(&self, id: ProcId, xid: Xid) {
        self.slots[id].xid.store(xid.0, Ordering::SeqCst);
    }

    /// Clears slot `id`'s xid. Caller holds the exclusive lock.
    pub(crate) fn clear_xid(&self, id: ProcId) {
        self.slots[id].xid.store(0, Ordering::SeqCst);
    }

    /// Publishes how many live subxids slot `id`'s transaction has.
    pub(crate) fn set_subxact_count(&self, id: ProcId, count: usize) {
        self.slots[id].subxacts.store(count.min(u32::MAX as usize) as u32, Ordering::Relaxed);
    }

    /// Publishes slot `id`'s oldest snapshot (or none with zeros).
    pub(crate) fn set_snapshot(&self, id: ProcId, xmin: Xid, csn: Csn) {
        self.slots[id].xmin.store(xmin.0, Ordering::SeqCst);
        self.slots[id].csn.store(csn.0, Ordering::SeqCst);
    }

    /// The oldest running xid, no newer than `next_xid`. Caller holds a lock.
    pub(crate) fn oldest_running(&self, next_xid: Xid) -> Xid {
        self.slots
            .iter()
            .filter(|s| s.in_use.load(Ordering::Acquire))
            .map(|s| s.xid.load(Ordering::SeqCst))
            .filter(|&x| x != 0)
            .fold(next_xid, |acc, x| acc.min(Xid(x)))
    }

    /// The horizon, given the counters' current values. Caller holds the
    /// exclusive lock.
    pub(crate) fn horizon(&self, next_xid: Xid, next_csn: Csn) -> Horizon {
        let mut h = Horizon { xmin: next_xid, csn: next_csn };
        for s in self.slots.iter().filter(|s| s.in_use.load(Ordering::Acquire)) {
            for x in [s.xid.load(Ordering::SeqCst), s.xmin.load(Ordering::SeqCst)] {
                if x != 0 {
                    h.xmin = h.xmin.min(Xid(x));
                }
            }
            let csn = s.csn.load(Ordering::SeqCst);
            if csn != 0 {
                h.csn = h.csn.min(Csn(csn));
            }
        }
        h
    }

    /// The transaction state of every registered backend.
    pub fn states(&self) -> Vec<ProcState> {
        let nonzero = |v: u64| (v != 0).then_some(Xid(v));
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.in_use.load(Ordering::Acquire))
            .map(|(proc, s)| ProcState {
                proc,
                pid: s.pid.load(Ordering::Relaxed),
                xid: nonzero(s.xid.load(Ordering::Relaxed)),
                xmin: nonzero(s.xmin.load(Ordering::Relaxed)),
                subxacts: s.subxacts.load(Ordering::Relaxed),
            })
            .collect()
    }
}
