//! The shared lock table: lock objects, granting, queueing, waking and waiting
//! (PostgreSQL's `lock.c` LockAcquire/LockRelease/LockReleaseAll and `proc.c`'s
//! JoinWaitQueue/ProcSleep/ProcLockWakeup).
//!
//! A [`Lock`] exists for every tag somebody holds or awaits; it records which
//! modes each owner holds (PostgreSQL's PROCLOCK hold masks), how many owners
//! hold each mode (`granted`, for a quick conflict test) and the wait queue.
//! Per-owner hold *counts* live outside the shared table, in the owner's own
//! slot (PostgreSQL's LOCALLOCK), so taking a lock one already holds touches no
//! shared state.
//!
//! # Invariants
//!
//! * An owner's local count for `(tag, mode)` is non-zero exactly when the
//!   shared table shows it holding `mode` on `tag` (both are changed by the
//!   owner's thread, except that a releaser grants a *waiting* owner's request
//!   on its behalf, which the owner records when it wakes).
//! * No two different owners hold conflicting modes on one lock.
//! * A waiter is in exactly one queue, and only while its owner sleeps in
//!   [`LockManager::acquire`]; an owner waits for one lock at a time.
//! * A lock object with no holders and no waiters is removed.
//!
//! # Locking
//!
//! See the module doc of `lmgr`: one mutex per partition; everything in this
//! file holds at most one of them, except deadlock checks and the views, which
//! take all of them in index order.

use super::deadlock::{report, WaitForGraph, WaitStep};
use super::modes::{LockMask, LockMode};
use super::{LockError, LockOwner, LockTag, LockWaitParams};
use crate::procarray::ProcId;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant, SystemTime};

/// Number of partitions of the lock table (PostgreSQL's NUM_LOCK_PARTITIONS).
const LOCK_PARTITIONS: usize = 16;

/// How often a sleeping waiter asks its `interrupted` callback.
const INTERRUPT_POLL: Duration = Duration::from_millis(10);

/// One partition of the lock table: the lock objects whose tags hash to it.
pub(super) type Partition = HashMap<LockTag, Lock>;

/// One lockable object's state (PostgreSQL's LOCK with its PROCLOCKs).
#[derive(Default)]
pub(super) struct Lock {
    /// Owners holding at least one mode, with the modes they hold.
    pub(super) holders: Vec<Holder>,
    /// How many owners hold each mode (index `mode - 1`).
    granted: [u32; 8],
    /// Requests not yet granted, in the order they will be considered.
    pub(super) waiters: VecDeque<Waiter>,
}

/// The modes one owner holds on a lock.
pub(super) struct Holder {
    /// Who holds them.
    pub(super) owner: LockOwner,
    /// Which modes (never empty).
    pub(super) modes: LockMask,
}

/// A queued request.
pub(super) struct Waiter {
    /// Who waits.
    pub(super) owner: LockOwner,
    /// For which mode.
    pub(super) mode: LockMode,
    /// When it started waiting (`pg_locks.waitstart`).
    pub(super) since: SystemTime,
}

/// What a new request on a lock gets (JoinWaitQueue's outcome).
enum Admission {
    /// Granted at once.
    Granted,
    /// Must wait at this queue position.
    Queue(usize),
    /// Must wait for this earlier waiter (owner and requested mode), which
    /// waits for a mode the requester already holds: a deadlock of two, known
    /// without waiting.
    Deadlock(LockOwner, LockMode),
}

/// One owner's private state in the lock manager.
#[derive(Default)]
struct ProcLocks {
    /// Hold counts of the owner's granted locks (PostgreSQL's LOCALLOCK table).
    /// Only the owner's thread uses it; never locked together with a partition.
    held: Mutex<HashMap<(LockTag, LockMode), u32>>,
    /// How many of the holds in `held` were taken for the session rather
    /// than a transaction: those stay when the transaction's locks go
    /// (PostgreSQL's session locks, which CREATE INDEX CONCURRENTLY holds
    /// across its transactions and `pg_advisory_lock` takes). Never more than
    /// the `held` count of the same key. Owner's thread only.
    session: Mutex<HashMap<(LockTag, LockMode), u32>>,
    /// Notified, under the partition mutex, when a releaser grants the owner's
    /// awaited lock. Only the owner sleeps on it.
    wakeup: Condvar,
}

/// The heavyweight lock manager shared by all backends. See the `lmgr` module
/// doc for the rules it implements.
pub struct LockManager {
    partitions: Box<[Mutex<Partition>]>,
    procs: Box<[ProcLocks]>,
    /// Backends waiting out another backend's transaction by watching it
    /// rather than through a lock (waiter pid → awaited pid): CONCURRENTLY
    /// commands outlasting a transaction that has no xid. PostgreSQL waits
    /// on such a transaction's virtual xid lock; sluice's transactions hold
    /// no such lock, so the wait is registered here for `pg_blocking_pids`.
    watching: Mutex<HashMap<u32, u32>>,
}

/// A registered wait for another backend's transaction (see
/// [`LockManager::watch_backend`]); dropping it ends the wait.
pub struct BackendWatch<'m> {
    manager: &'m LockManager,
    waiter: u32,
}

impl Drop for BackendWatch<'_> {
    fn drop(&mut self) {
        self.manager.watching.lock().remove(&self.waiter);
    }
}

impl Lock {
    /// The modes `proc` holds here.
    pub(super) fn held_by(&self, proc: ProcId) -> LockMask {
        self.holders.iter().find(|h| h.owner.proc == proc).map_or(LockMask::EMPTY, |h| h.modes)
    }

    /// The modes anybody holds here.
    fn grant_mask(&self) -> LockMask {
        LockMode::ALL
            .into_iter()
            .filter(|&m| self.granted[m as usize - 1] > 0)
            .fold(LockMask::EMPTY, |acc, m| acc | m.bit())
    }

    /// The modes somebody waits for here.
    fn wait_mask(&self) -> LockMask {
        self.waiters.iter().fold(LockMask::EMPTY, |acc, w| acc | w.mode.bit())
    }

    /// conflicts_with_others -- whether owners other than `proc` hold a mode
    /// that conflicts with `mode` (LockCheckConflicts).
    fn conflicts_with_others(&self, proc: ProcId, mode: LockMode) -> bool {
        let conflicts = mode.conflicts();
        if !self.grant_mask().intersects(conflicts) {
            return false;
        }
        let mine = self.held_by(proc);
        conflicts.modes().any(|m| self.granted[m as usize - 1] > u32::from(mine.contains(m)))
    }

    /// admit -- decides a new request of `owner` for `mode`, which it does not
    /// hold yet (LockAcquire's conflict test plus JoinWaitQueue's placement).
    ///
    /// Granted if nobody else holds a conflicting mode and nobody waits for
    /// one. Otherwise it queues at the end, unless the requester already holds
    /// modes here that an earlier waiter wants: then it goes just before the
    /// first such waiter (who has to wait for it anyway), and is even granted
    /// at once if nothing before that position conflicts.
    fn admit(&self, owner: LockOwner, mode: LockMode) -> Admission {
        let conflicts = mode.conflicts();
        if !conflicts.intersects(self.wait_mask()) && !self.conflicts_with_others(owner.proc, mode)
        {
            return Admission::Granted;
        }
        let mine = self.held_by(owner.proc);
        if mine.is_empty() {
            return Admission::Queue(self.waiters.len());
        }
        let mut ahead = LockMask::EMPTY;
        for (position, waiter) in self.waiters.iter().enumerate() {
            if waiter.mode.conflicts().intersects(mine) {
                if conflicts.intersects(self.held_by(waiter.owner.proc)) {
                    return Admission::Deadlock(waiter.owner, waiter.mode);
                }
                if !conflicts.intersects(ahead) && !self.conflicts_with_others(owner.proc, mode) {
                    return Admission::Granted;
                }
                return Admission::Queue(position);
            }
            ahead |= waiter.mode.bit();
        }
        Admission::Queue(self.waiters.len())
    }

    /// Records `owner` as holding `mode`.
    fn grant(&mut self, owner: LockOwner, mode: LockMode) {
        match self.holders.iter_mut().find(|h| h.owner.proc == owner.proc) {
            Some(h) if h.modes.contains(mode) => return,
            Some(h) => h.modes |= mode.bit(),
            None => self.holders.push(Holder { owner, modes: mode.bit() }),
        }
        self.granted[mode as usize - 1] += 1;
    }

    /// Forgets that `proc` holds `mode`.
    fn ungrant(&mut self, proc: ProcId, mode: LockMode) {
        let Some(i) = self.holders.iter().position(|h| h.owner.proc == proc) else { return };
        let holder = &mut self.holders[i];
        if !holder.modes.contains(mode) {
            return;
        }
        holder.modes = holder.modes.without(mode);
        if holder.modes.is_empty() {
            self.holders.swap_remove(i);
        }
        self.granted[mode as usize - 1] -= 1;
    }

    /// grant_waiters -- grants every waiter that conflicts neither with what is
    /// held nor with the requests of waiters still queued before it, in queue
    /// order (ProcLockWakeup); returns who was granted.
    fn grant_waiters(&mut self) -> Vec<LockOwner> {
        let mut woken = Vec::new();
        let mut ahead = LockMask::EMPTY;
        let mut i = 0;
        while i < self.waiters.len() {
            let Waiter { owner, mode, .. } = self.waiters[i];
            if !mode.conflicts().intersects(ahead) && !self.conflicts_with_others(owner.proc, mode)
            {
                self.waiters.remove(i);
                self.grant(owner, mode);
                woken.push(owner);
            } else {
                ahead |= mode.bit();
                i += 1;
            }
        }
        woken
    }

    /// move_before -- if `waiter` is queued behind `ahead` only because of
    /// the queue order (`ahead` is queued earlier and holds nothing `waiter`'s
    /// request conflicts with), moves `waiter` to just before `ahead` and
    /// returns its old and new positions.
    pub(super) fn move_before(&mut self, waiter: ProcId, ahead: ProcId) -> Option<(usize, usize)> {
        let from = self.queue_position(waiter)?;
        let to = self.queue_position(ahead)?;
        let conflicts = self.waiters[from].mode.conflicts();
        if to > from || self.held_by(ahead).intersects(conflicts) {
            return None;
        }
        let request = self.waiters.remove(from)?;
        self.waiters.insert(to, request);
        Some((from, to))
    }

    /// Where `proc` waits in the queue, if it does.
    pub(super) fn queue_position(&self, proc: ProcId) -> Option<usize> {
        self.waiters.iter().position(|w| w.owner.proc == proc)
    }

    /// blockers -- who keeps the waiter at `position` waiting: holders of modes
    /// that conflict with its request, then earlier waiters whose requests do
    /// (hard and soft edges of the wait-for graph; pg_blocking_pids).
    pub(super) fn blockers(&self, position: usize) -> Vec<LockOwner> {
        let waiter = &self.waiters[position];
        let conflicts = waiter.mode.conflicts();
        let holders =
            self.holders.iter().filter(|h| h.modes.intersects(conflicts)).map(|h| h.owner);
        let earlier = self
            .waiters
            .iter()
            .take(position)
            .filter(|w| conflicts.intersects(w.mode.bit()))
            .map(|w| w.owner);
        let mut blockers: Vec<LockOwner> = Vec::new();
        for owner in holders.chain(earlier) {
            if owner.proc != waiter.owner.proc && !blockers.contains(&owner) {
                blockers.push(owner);
            }
        }
        blockers
    }

    /// Whether nobody holds or awaits the lock any more.
    fn is_unused(&self) -> bool {
        self.holders.is_empty() && self.waiters.is_empty()
    }
}

/// The partition holding `tag`'s lock object.
pub(super) fn partition_of(tag: &LockTag) -> usize {
    let mut hasher = DefaultHasher::new();
    tag.hash(&mut hasher);
    (hasher.finish() % LOCK_PARTITIONS as u64) as usize
}

/// Whether `proc` is queued on `tag` in `partition`.
fn is_waiting(partition: &Partition, tag: &LockTag, proc: ProcId) -> bool {
    partition.get(tag).is_some_and(|lock| lock.queue_position(proc).is_some())
}

impl LockManager {
    /// A lock manager for owners with proc slots `0..max_procs`.
    pub fn new(max_procs: usize) -> LockManager {
        LockManager {
            partitions: (0..LOCK_PARTITIONS).map(|_| Mutex::default()).collect(),
            procs: (0..max_procs).map(|_| ProcLocks::default()).collect(),
            watching: Mutex::default(),
        }
    }

    /// watch_backend -- records that backend `waiter` waits for the
    /// transaction of backend `awaited` to end, until the guard drops.
    pub fn watch_backend(&self, waiter: u32, awaited: u32) -> BackendWatch<'_> {
        self.watching.lock().insert(waiter, awaited);
        BackendWatch { manager: self, waiter }
    }

    /// The backend `waiter` watches, if any.
    pub(super) fn watched_by(&self, waiter: u32) -> Option<u32> {
        self.watching.lock().get(&waiter).copied()
    }

    /// acquire -- takes `mode` on `tag` for `owner`, waiting as `params` allow
    /// (LockAcquire). Taking a mode the owner already holds only counts it; each
    /// successful acquire needs one [`release`](Self::release), or
    /// [`release_all`](Self::release_all) at transaction end.
    ///
    /// The owner's thread must be the only one acting for `owner.proc`, and
    /// `owner.proc` must be below the `max_procs` the manager was built with.
    pub fn acquire(
        &self,
        owner: LockOwner,
        tag: LockTag,
        mode: LockMode,
        params: &LockWaitParams<'_>,
    ) -> Result<(), LockError> {
        if let Some(count) = self.procs[owner.proc].held.lock().get_mut(&(tag, mode)) {
            *count += 1;
            return Ok(());
        }
        self.acquire_shared(owner, tag, mode, params)?;
        self.procs[owner.proc].held.lock().insert((tag, mode), 1);
        Ok(())
    }

    /// acquire_shared -- grants or queues the request in the shared table and
    /// sleeps until it is granted or fails. Takes and releases the partition.
    fn acquire_shared(
        &self,
        owner: LockOwner,
        tag: LockTag,
        mode: LockMode,
        params: &LockWaitParams<'_>,
    ) -> Result<(), LockError> {
        let mut partition = self.partitions[partition_of(&tag)].lock();
        let lock = partition.entry(tag).or_default();
        // A request that is not granted conflicts with somebody's, so the lock
        // object is in use and need not be cleaned up on the error paths.
        let position = match lock.admit(owner, mode) {
            Admission::Granted => {
                lock.grant(owner, mode);
                return Ok(());
            }
            _ if params.nowait => return Err(LockError::NotAvailable(tag)),
            Admission::Deadlock(other, other_mode) => {
                let me = WaitStep { pid: owner.pid, mode, tag };
                let other = WaitStep { pid: other.pid, mode: other_mode, tag };
                return Err(LockError::Deadlock { detail: report(&[me, other]) });
            }
            Admission::Queue(position) => position,
        };
        lock.waiters.insert(position, Waiter { owner, mode, since: SystemTime::now() });
        self.sleep(partition, owner, tag, params)
    }

    /// sleep -- waits until the queued request of `owner` on `tag` is granted
    /// (ProcSleep). Every `deadlock_timeout` it looks for a deadlock; it gives
    /// up on `lock_timeout` or when `interrupted` says so, taking the request
    /// out of the queue. `partition` is the tag's partition, locked; the
    /// callback runs with it unlocked.
    fn sleep<'a>(
        &'a self,
        mut partition: MutexGuard<'a, Partition>,
        owner: LockOwner,
        tag: LockTag,
        params: &LockWaitParams<'_>,
    ) -> Result<(), LockError> {
        let start = Instant::now();
        let give_up_at = params.lock_timeout.map(|t| start + t);
        let mut check_at = start + params.deadlock_timeout;
        loop {
            let interrupted = MutexGuard::unlocked(&mut partition, params.interrupted);
            if !is_waiting(&partition, &tag, owner.proc) {
                return Ok(());
            }
            let now = Instant::now();
            let failure = if interrupted {
                Some(LockError::Interrupted)
            } else if give_up_at.is_some_and(|t| now >= t) {
                Some(LockError::Timeout)
            } else {
                None
            };
            if let Some(failure) = failure {
                self.cancel_wait(&mut partition, tag, owner.proc);
                return Err(failure);
            }
            if now >= check_at {
                drop(partition);
                if let Some(detail) = self.check_deadlock(owner.proc, tag) {
                    return Err(LockError::Deadlock { detail });
                }
                partition = self.partitions[partition_of(&tag)].lock();
                // At least a millisecond apart, or a zero timeout would spin.
                check_at = now + params.deadlock_timeout.max(Duration::from_millis(1));
                continue;
            }
            let wake_at =
                give_up_at.map_or(check_at, |t| t.min(check_at)).min(now + INTERRUPT_POLL);
            self.procs[owner.proc].wakeup.wait_until(&mut partition, wake_at);
        }
    }

    /// check_deadlock -- with every partition locked, looks for a cycle of
    /// waits through `proc`, which waits on `tag` (CheckDeadLock). If there is
    /// one, `proc`'s request leaves the queue and the DETAIL text is returned.
    fn check_deadlock(&self, proc: ProcId, tag: LockTag) -> Option<String> {
        let mut partitions = self.lock_all();
        let index = partition_of(&tag);
        if !is_waiting(&partitions[index], &tag, proc) {
            return None;
        }
        let graph = WaitForGraph::build(partitions.iter().flat_map(|p| p.iter()));
        let cycle = graph.cycle_through(proc)?;
        if self.reverse_a_soft_edge(&mut partitions, &graph, &cycle) {
            return None;
        }
        self.cancel_wait(&mut partitions[index], tag, proc);
        Some(report(&graph.steps(&cycle)))
    }

    /// reverse_a_soft_edge -- tries, deepest first, moving each waiter of
    /// `cycle` that waits only because of the queue order to just before the
    /// waiter it is queued behind (see the soft deadlocks of `deadlock.rs`).
    /// Keeps the first order that leaves no member of the cycle on a cycle,
    /// grants what it lets go and returns true; otherwise leaves every queue
    /// as it was.
    fn reverse_a_soft_edge(
        &self,
        partitions: &mut [MutexGuard<'_, Partition>],
        graph: &WaitForGraph,
        cycle: &[ProcId],
    ) -> bool {
        let edges = (0..cycle.len()).map(|i| (cycle[i], cycle[(i + 1) % cycle.len()]));
        for (waiter, ahead) in edges.rev() {
            let Some(step) = graph.waits_for(waiter) else { continue };
            let index = partition_of(&step.tag);
            let Some(lock) = partitions[index].get_mut(&step.tag) else { continue };
            let Some((from, to)) = lock.move_before(waiter, ahead) else { continue };
            let reordered = WaitForGraph::build(partitions.iter().flat_map(|p| p.iter()));
            if cycle.iter().all(|&member| reordered.cycle_through(member).is_none()) {
                self.wake_and_clean(&mut partitions[index], step.tag);
                return true;
            }
            let lock = partitions[index].get_mut(&step.tag).expect("the lock is still there");
            let request = lock.waiters.remove(to).expect("the moved waiter");
            lock.waiters.insert(from, request);
        }
        false
    }

    /// cancel_wait -- takes `proc`'s request out of `tag`'s queue and grants
    /// what that unblocks (RemoveFromWaitQueue + ProcLockWakeup). Caller holds
    /// the tag's partition.
    fn cancel_wait(&self, partition: &mut Partition, tag: LockTag, proc: ProcId) {
        let Some(lock) = partition.get_mut(&tag) else { return };
        if let Some(position) = lock.queue_position(proc) {
            lock.waiters.remove(position);
        }
        self.wake_and_clean(partition, tag);
    }

    /// wake_and_clean -- after `tag`'s lock changed, grants the waiters that can
    /// now go, wakes them, and drops the lock object if nobody uses it.
    fn wake_and_clean(&self, partition: &mut Partition, tag: LockTag) {
        let Some(lock) = partition.get_mut(&tag) else { return };
        for owner in lock.grant_waiters() {
            self.procs[owner.proc].wakeup.notify_one();
        }
        if lock.is_unused() {
            partition.remove(&tag);
        }
    }

    /// release -- gives back one acquire of `mode` on `tag` by `proc`
    /// (LockRelease). The lock goes when the last acquire is given back, and
    /// waiters it was blocking are granted. False if `proc` did not hold it
    /// (PostgreSQL warns "you don't own a lock of type ...").
    pub fn release(&self, proc: ProcId, tag: LockTag, mode: LockMode) -> bool {
        {
            let mut held = self.procs[proc].held.lock();
            match held.get_mut(&(tag, mode)) {
                None => return false,
                Some(count) if *count > 1 => {
                    *count -= 1;
                    return true;
                }
                Some(_) => held.remove(&(tag, mode)),
            };
        }
        let mut partition = self.partitions[partition_of(&tag)].lock();
        self.ungrant(&mut partition, tag, proc, mode.bit());
        true
    }

    /// acquire_session -- takes `mode` on `tag` for `owner`'s session: held
    /// across transaction ends until [`release_session`](Self::release_session)
    /// or [`release_backend`](Self::release_backend). Counted like
    /// [`acquire`](Self::acquire), separately from the transaction's holds.
    pub fn acquire_session(
        &self,
        owner: LockOwner,
        tag: LockTag,
        mode: LockMode,
        params: &LockWaitParams<'_>,
    ) -> Result<(), LockError> {
        self.acquire(owner, tag, mode, params)?;
        *self.procs[owner.proc].session.lock().entry((tag, mode)).or_default() += 1;
        Ok(())
    }

    /// release_session -- gives back one session hold taken by
    /// [`acquire_session`](Self::acquire_session). False if `proc` has no
    /// session hold of `mode` on `tag` (holds of its transaction do not count).
    pub fn release_session(&self, proc: ProcId, tag: LockTag, mode: LockMode) -> bool {
        {
            let mut session = self.procs[proc].session.lock();
            match session.get_mut(&(tag, mode)) {
                None => return false,
                Some(count) if *count > 1 => *count -= 1,
                Some(_) => {
                    session.remove(&(tag, mode));
                }
            }
        }
        self.release(proc, tag, mode)
    }

    /// release_session_where -- gives back every session hold of `proc` on a
    /// tag `which` selects (LockReleaseSession: `pg_advisory_unlock_all`).
    pub fn release_session_where(&self, proc: ProcId, which: impl Fn(&LockTag) -> bool) {
        let released: Vec<((LockTag, LockMode), u32)> = {
            let mut session = self.procs[proc].session.lock();
            let keys: Vec<_> = session.keys().filter(|(tag, _)| which(tag)).copied().collect();
            keys.into_iter().filter_map(|key| session.remove_entry(&key)).collect()
        };
        for ((tag, mode), count) in released {
            for _ in 0..count {
                self.release(proc, tag, mode);
            }
        }
    }

    /// release_backend -- gives back everything `proc` holds, session locks
    /// included: the backend is going away (ProcKill's LockReleaseAll with
    /// `allLocks`), and its slot must be clean for the next backend.
    pub fn release_backend(&self, proc: ProcId) {
        self.procs[proc].session.lock().clear();
        self.release_all(proc);
    }

    /// release_all -- gives back every lock `proc`'s transaction holds
    /// (LockReleaseAll, at transaction end), locking each partition once.
    /// Session holds stay, with their counts.
    pub fn release_all(&self, proc: ProcId) {
        let mut held = std::mem::take(&mut *self.procs[proc].held.lock());
        let session = self.procs[proc].session.lock();
        if !session.is_empty() {
            *self.procs[proc].held.lock() = session.clone();
            held.retain(|key, _| !session.contains_key(key));
        }
        drop(session);
        let mut by_tag: HashMap<LockTag, LockMask> = HashMap::new();
        for (tag, mode) in held.into_keys() {
            *by_tag.entry(tag).or_default() |= mode.bit();
        }
        let mut tags: Vec<(usize, LockTag, LockMask)> =
            by_tag.into_iter().map(|(tag, modes)| (partition_of(&tag), tag, modes)).collect();
        tags.sort_unstable_by_key(|&(index, ..)| index);
        for group in tags.chunk_by(|a, b| a.0 == b.0) {
            let mut partition = self.partitions[group[0].0].lock();
            for &(_, tag, modes) in group {
                self.ungrant(&mut partition, tag, proc, modes);
            }
        }
    }

    /// ungrant -- removes `modes` of `proc` from `tag`'s lock and wakes whoever
    /// that unblocks. Caller holds the tag's partition.
    fn ungrant(&self, partition: &mut Partition, tag: LockTag, proc: ProcId, modes: LockMask) {
        let lock = partition.get_mut(&tag).expect("a held lock has a lock object");
        for mode in modes.modes() {
            lock.ungrant(proc, mode);
        }
        self.wake_and_clean(partition, tag);
    }

    /// conflicting_holders -- the owners other than `me` holding a mode on
    /// `tag` that conflicts with `mode` (what PostgreSQL's GetLockConflicts
    /// lists for WaitForLockers).
    pub fn conflicting_holders(&self, tag: LockTag, mode: LockMode, me: ProcId) -> Vec<LockOwner> {
        let partition = self.partitions[partition_of(&tag)].lock();
        let Some(lock) = partition.get(&tag) else { return Vec::new() };
        lock.holders
            .iter()
            .filter(|h| h.owner.proc != me)
            .filter(|h| h.modes.modes().any(|held| held.conflicts_with(mode)))
            .map(|h| h.owner)
            .collect()
    }

    /// held_by -- every (tag, mode) `proc` holds, for the session or its
    /// transaction (what the tests check is gone after release).
    #[cfg(test)]
    pub(super) fn held_by(&self, proc: ProcId) -> Vec<(LockTag, LockMode)> {
        let mut held: Vec<_> = self.procs[proc].held.lock().keys().copied().collect();
        held.sort_unstable_by_key(|&(tag, mode)| (tag, mode as u8));
        held
    }

    /// transaction_locks -- every (tag, mode) `proc` holds for its
    /// transaction, not only for its session.
    pub fn transaction_locks(&self, proc: ProcId) -> Vec<(LockTag, LockMode)> {
        let held = self.procs[proc].held.lock().clone();
        let session = self.procs[proc].session.lock().clone();
        let mut locks: Vec<_> = held
            .into_iter()
            .filter(|(key, count)| session.get(key).copied().unwrap_or(0) < *count)
            .map(|(key, _)| key)
            .collect();
        locks.sort_unstable_by_key(|&(tag, mode)| (tag, mode as u8));
        locks
    }

    /// holds_at_both_levels -- whether `proc` holds some object both for
    /// its session and for its transaction (PREPARE TRANSACTION cannot
    /// give the transaction's hold away and keep the session's: one holder
    /// entry per owner and object carries both).
    pub fn holds_at_both_levels(&self, proc: ProcId) -> bool {
        let session: Vec<LockTag> =
            self.procs[proc].session.lock().keys().map(|&(tag, _)| tag).collect();
        self.transaction_locks(proc).iter().any(|(tag, _)| session.contains(tag))
    }

    /// transfer_all -- hands every lock `from`'s transaction holds to `to`,
    /// which holds none, with every partition locked so nobody sees the locks
    /// free in between (PREPARE TRANSACTION's move to a dummy proc). Session
    /// locks stay with `from`.
    pub fn transfer_all(&self, from: ProcId, to: LockOwner) {
        let mut partitions = self.lock_all();
        let session = self.procs[from].session.lock().clone();
        let all = std::mem::replace(&mut *self.procs[from].held.lock(), session.clone());
        let held: HashMap<_, _> =
            all.into_iter().filter(|(k, _)| !session.contains_key(k)).collect();
        for &(tag, _) in held.keys() {
            let partition = &mut partitions[partition_of(&tag)];
            if let Some(holder) = partition
                .get_mut(&tag)
                .and_then(|lock| lock.holders.iter_mut().find(|h| h.owner.proc == from))
            {
                holder.owner = to;
            }
        }
        *self.procs[to.proc].held.lock() = held;
    }

    /// Whether `proc` holds `mode` on `tag` (LockHeldByMe).
    pub fn holds(&self, proc: ProcId, tag: LockTag, mode: LockMode) -> bool {
        self.procs[proc].held.lock().contains_key(&(tag, mode))
    }

    /// lock_all -- locks every partition, in index order (the only order in
    /// which more than one is ever taken), for a consistent view of the table.
    pub(super) fn lock_all(&self) -> Vec<MutexGuard<'_, Partition>> {
        self.partitions.iter().map(|p| p.lock()).collect()
    }
}
