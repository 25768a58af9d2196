//! Who holds a row, and what its xmax becomes when one more transaction
//! joins them (the heap side of multixacts: PostgreSQL's heapam.c
//! `compute_new_xmax_infomask`, `DoesMultiXactIdConflict`,
//! `GetMultiXactIdHintBits`, `HeapTupleHeaderGetUpdateXid`).
//!
//! # Holders
//!
//! A version's xmax names its *holders*: nobody (invalid, or every holder
//! has ended), one transaction (a plain xid, an updater or — flagged
//! `HEAP_XMAX_LOCK_ONLY` — a locker), or several (`HEAP_XMAX_IS_MULTI`: a
//! multixact of lockers and at most one updater, see `sluice-txn`'s
//! `multixact.rs`). [`holders`] reads either form as the list of members
//! still live: running (or sub-committed under a running parent), or the
//! asking transaction's own. An aborted member — a subtransaction rolled
//! back by ROLLBACK TO among them — and a finished locker hold nothing.
//!
//! # Joining
//!
//! [`plan`] decides what a request (a row lock, an UPDATE or a DELETE, each
//! with the strength of [`TupleLockMode`]) must do about the holders:
//!
//! * a live holder of *another* transaction in a conflicting strength →
//!   wait for it (each in turn: PostgreSQL's MultiXactIdWait);
//! * a lock of the asking transaction at least as strong → nothing to do;
//! * otherwise proceed: the new xmax is the surviving holders plus the
//!   requester ([`new_xmax`]): a plain xid when the requester is alone, a
//!   new multi otherwise. The requester's own earlier entry (same xid) is
//!   merged into the new one at the stronger status; entries of its parent
//!   or other subtransactions stay separate, so rolling back a
//!   subtransaction gives back exactly that subtransaction's lock.
//!
//! # Header bits of a multi
//!
//! The lock bits of a multi xmax show its strongest member (so a reader of
//! the header alone knows the worst it may conflict with), and
//! `HEAP_XMAX_LOCK_ONLY` is set when no member updated the row. A multi
//! never gets `HEAP_XMAX_COMMITTED`; `HEAP_XMAX_INVALID` once every member
//! has ended without a committed update.

use super::tuplock::{xmax_mode, TupleLockMode};
use super::visibility::VisibilityContext;
use crate::common::htup::*;
use crate::error::Result;
use sluice_common::{ItemPointer, Xid};
use sluice_txn::{MultiXactId, MultiXactMember, MultiXactStatus, TransactionManager, XidStatus};

/// The strength a member's status holds the row in.
pub fn status_mode(status: MultiXactStatus) -> TupleLockMode {
    match status {
        MultiXactStatus::ForKeyShare => TupleLockMode::KeyShare,
        MultiXactStatus::ForShare => TupleLockMode::Share,
        MultiXactStatus::ForNoKeyUpdate | MultiXactStatus::NoKeyUpdate => {
            TupleLockMode::NoKeyUpdate
        }
        MultiXactStatus::ForUpdate | MultiXactStatus::Update => TupleLockMode::Update,
    }
}

/// The member status of a request of strength `mode`: a lock, or (when
/// `update`) an UPDATE/DELETE.
pub fn request_status(mode: TupleLockMode, update: bool) -> MultiXactStatus {
    match (mode, update) {
        (TupleLockMode::KeyShare, _) => MultiXactStatus::ForKeyShare,
        (TupleLockMode::Share, _) => MultiXactStatus::ForShare,
        (TupleLockMode::NoKeyUpdate, false) => MultiXactStatus::ForNoKeyUpdate,
        (TupleLockMode::Update, false) => MultiXactStatus::ForUpdate,
        (TupleLockMode::NoKeyUpdate, true) => MultiXactStatus::NoKeyUpdate,
        (TupleLockMode::Update, true) => MultiXactStatus::Update,
    }
}

/// The multi a multi xmax names.
pub fn xmax_multi<B: AsRef<[u8]>>(hdr: &HeapTupleHeader<B>) -> MultiXactId {
    MultiXactId(hdr.xmax().0)
}

/// Every member of the version's xmax, live or not: a plain xmax as one
/// member with the status its bits show.
fn all_members<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    mgr: &TransactionManager,
) -> Result<Vec<MultiXactMember>> {
    if hdr.xmax_invalid() || !hdr.xmax().is_valid() {
        return Ok(Vec::new());
    }
    if hdr.xmax_is_multi() {
        return Ok(mgr.multixacts()?.members(xmax_multi(hdr))?);
    }
    let status = request_status(xmax_mode(hdr), !hdr.xmax_is_locked_only());
    Ok(vec![MultiXactMember { xid: hdr.xmax(), status }])
}

/// update_xid -- the transaction that updated or deleted the version, if
/// its xmax records one (PostgreSQL's HeapTupleHeaderGetUpdateXid):
/// `INVALID` for no xmax or a lock-only one, the update member of a multi.
pub fn update_xid<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    mgr: &TransactionManager,
) -> Result<Xid> {
    if hdr.xmax_invalid() || !hdr.xmax().is_valid() || hdr.xmax_is_locked_only() {
        return Ok(Xid::INVALID);
    }
    if !hdr.xmax_is_multi() {
        return Ok(hdr.xmax());
    }
    let members = mgr.multixacts()?.members(xmax_multi(hdr))?;
    Ok(members.iter().find(|m| m.status.is_update()).map_or(Xid::INVALID, |m| m.xid))
}

/// Whether `xid` (not the asker's) has not ended yet.
fn running(mgr: &TransactionManager, xid: Xid) -> Result<bool> {
    Ok(matches!(mgr.xid_status(xid)?, XidStatus::InProgress | XidStatus::SubCommitted))
}

/// What the members of a version's xmax say, each member's status read
/// once (see [`holders`]).
pub enum Holders {
    /// The members still live (and a committed updater the request does
    /// not conflict with); every other one has ended holding nothing.
    Live(Vec<MultiXactMember>),
    /// A member of another transaction that updated or deleted the version
    /// in a way the request conflicts with has committed (perhaps since
    /// the caller's visibility check): the version is outdated and must be
    /// looked at again, never joined.
    Outdated,
}

/// holders -- the live members of the version's xmax (see the module doc)
/// for a request of strength `mode` (`None`: any committed updater makes
/// the version outdated), or [`Holders::Outdated`]. The check and the
/// decision use the same reading of each member's status: a member read
/// as ended is never re-read as running, and an ended updater is never a
/// holder to drop, because it left a successor behind. A committed no-key
/// updater stays a member under a FOR KEY SHARE request: the lock may
/// join it (PostgreSQL locks such a version without following it).
pub fn holders<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    ctx: &VisibilityContext,
    mode: Option<TupleLockMode>,
) -> Result<Holders> {
    let mut live = Vec::new();
    for m in all_members(hdr, ctx.mgr)? {
        if ctx.is_own(m.xid) {
            live.push(m);
            continue;
        }
        match ctx.mgr.xid_status(m.xid)? {
            XidStatus::InProgress | XidStatus::SubCommitted => live.push(m),
            XidStatus::Committed if m.status.is_update() => match mode {
                Some(mode) if !status_mode(m.status).conflicts(mode) => live.push(m),
                _ => return Ok(Holders::Outdated),
            },
            // A finished locker and an aborted updater hold nothing.
            _ => {}
        }
    }
    Ok(Holders::Live(live))
}

/// any_running -- whether any member of the multi xmax other than the
/// asker's own is still running (PostgreSQL's MultiXactIdIsRunning).
pub fn any_running<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    mgr: &TransactionManager,
    is_own: &dyn Fn(Xid) -> bool,
) -> Result<bool> {
    for m in all_members(hdr, mgr)? {
        if is_own(m.xid) || running(mgr, m.xid)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// What a request must do about the row's holders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The asker already locks the row at least this strongly.
    Held,
    /// Live holders of other transactions conflict: wait for each.
    Wait {
        /// The conflicting holders, in member order.
        blockers: Vec<Xid>,
        /// Whether the asker is itself among the live holders (a lock it
        /// took earlier): an upgrade, which must not queue behind waiters.
        asker_holds: bool,
    },
    /// Go ahead; these holders stay beside the requester, whose status (its
    /// request merged with its own earlier lock) is the second field.
    Proceed(Vec<MultiXactMember>, MultiXactStatus),
    /// The version's updater committed (after the caller's visibility
    /// check, or in a way the request conflicts with): check the version
    /// again (it is updated or deleted).
    Recheck,
}

/// plan -- what a request by `xid` with status `want` must do about the
/// holders of the version `hdr` (see the module doc). Called with the page
/// locked, after `satisfies_update` found the version current.
pub fn plan<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    ctx: &VisibilityContext,
    xid: Xid,
    want: MultiXactStatus,
) -> Result<Plan> {
    let mode = status_mode(want);
    let live = match holders(hdr, ctx, Some(mode))? {
        Holders::Live(live) => live,
        Holders::Outdated => return Ok(Plan::Recheck),
    };
    let own = |m: &MultiXactMember| ctx.is_own(m.xid);
    if !want.is_update()
        && live.iter().any(|m| own(m) && !m.status.is_update() && status_mode(m.status) >= mode)
    {
        return Ok(Plan::Held);
    }
    let blockers: Vec<Xid> = live
        .iter()
        .filter(|m| !own(m) && status_mode(m.status).conflicts(mode))
        .map(|m| m.xid)
        .collect();
    if !blockers.is_empty() {
        let asker_holds = live.iter().any(own);
        return Ok(Plan::Wait { blockers, asker_holds });
    }
    let status = merged_status(&live, xid, want);
    Ok(Plan::Proceed(live.into_iter().filter(|m| m.xid != xid).collect(), status))
}

/// A new xmax: the value and the infomask / infomask2 bits that go with it
/// (the caller clears the old xmax bits first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewXmax {
    /// The xid or multi id.
    pub xmax: Xid,
    /// t_infomask xmax bits (lock bits, LOCK_ONLY, IS_MULTI).
    pub infomask: u16,
    /// t_infomask2 bits (KEYS_UPDATED).
    pub infomask2: u16,
}

/// new_xmax -- the xmax for `keep` plus the requester `xid` at `want`,
/// creating a multi when there are several (PostgreSQL's compute_new_xmax_infomask).
pub fn new_xmax(
    mgr: &TransactionManager,
    xid: Xid,
    want: MultiXactStatus,
    keep: &[MultiXactMember],
) -> Result<NewXmax> {
    let mut members = keep.to_vec();
    members.push(MultiXactMember { xid, status: want });
    let (infomask, infomask2) = hint_bits(&members);
    if keep.is_empty() {
        return Ok(NewXmax { xmax: xid, infomask, infomask2 });
    }
    let multi = mgr.create_multixact(xid, &members)?;
    Ok(NewXmax { xmax: Xid(multi.0), infomask: infomask | HEAP_XMAX_IS_MULTI, infomask2 })
}

/// carried_xmax -- the xmax an update's new version starts with when
/// lockers of the old one survive the update (`keep`, FOR KEY SHARE
/// lockers under a no-key update): the same lockers, so a later DELETE or
/// key update of the new version still waits for them (PostgreSQL's
/// heap_update gives the new tuple the old raw xmax for the same reason).
/// `None` when no locker survives.
pub fn carried_xmax(
    mgr: &TransactionManager,
    xid: Xid,
    keep: &[MultiXactMember],
) -> Result<Option<NewXmax>> {
    let (infomask, infomask2) = hint_bits(keep);
    Ok(match keep {
        [] => None,
        [one] => Some(NewXmax { xmax: one.xid, infomask, infomask2 }),
        _ => {
            let multi = mgr.create_multixact(xid, keep)?;
            Some(NewXmax { xmax: Xid(multi.0), infomask: infomask | HEAP_XMAX_IS_MULTI, infomask2 })
        }
    })
}

/// merged_status -- `want`, raised to the asker's existing lock of the same
/// xid among `old` holders if that is stronger (an update subsumes a lock).
fn merged_status(old: &[MultiXactMember], xid: Xid, want: MultiXactStatus) -> MultiXactStatus {
    if want.is_update() {
        return want;
    }
    old.iter()
        .filter(|m| m.xid == xid && !m.status.is_update())
        .map(|m| m.status)
        .fold(want, |a, b| if status_mode(b) > status_mode(a) { b } else { a })
}

/// The lock bits for the strongest of `members`, LOCK_ONLY when none
/// updated (PostgreSQL's GetMultiXactIdHintBits; one member gives a plain
/// xmax's bits).
fn hint_bits(members: &[MultiXactMember]) -> (u16, u16) {
    let strongest = members.iter().map(|m| status_mode(m.status)).max();
    let (bits, bits2) = match strongest {
        Some(TupleLockMode::KeyShare) => (HEAP_XMAX_KEYSHR_LOCK, 0),
        Some(TupleLockMode::Share) => (HEAP_XMAX_SHR_LOCK, 0),
        Some(TupleLockMode::NoKeyUpdate) => (HEAP_XMAX_EXCL_LOCK, 0),
        Some(TupleLockMode::Update) | None => (HEAP_XMAX_EXCL_LOCK, HEAP_KEYS_UPDATED),
    };
    let updated = members.iter().any(|m| m.status.is_update());
    if updated {
        // A plain updater's infomask carries no lock bits.
        let bits = if members.len() > 1 { bits } else { 0 };
        (bits, bits2)
    } else {
        (bits | HEAP_XMAX_LOCK_ONLY, bits2)
    }
}

/// freeze_multi -- replaces the multi xmax of `tuple` once every member
/// has ended (the simple cases of PostgreSQL's FreezeMultiXactId): without
/// a committed updater the xmax goes (no holder is left, and an aborted
/// update leaves no successor: the HOT link goes with it), with one it
/// becomes that plain xid, as if it had updated alone. Returns whether the
/// header changed; the caller logs it. No-op for a plain xmax or a multi
/// with a running member. A multi hinted invalid goes too: the hint alone
/// is not WAL-logged, the cleared xmax is.
pub fn freeze_multi(
    tuple: &mut [u8],
    self_tid: ItemPointer,
    mgr: &TransactionManager,
) -> Result<bool> {
    let mut hdr = HeapTupleHeader::new(tuple)?;
    if !hdr.xmax_is_multi() {
        return Ok(false);
    }
    // Hinted invalid: every member ended, no committed update.
    let updater = if hdr.xmax_invalid() {
        None
    } else if any_running(&hdr, mgr, &|_| false)? {
        return Ok(false);
    } else {
        let members = mgr.multixacts()?.members(xmax_multi(&hdr))?;
        members.into_iter().find(|m| m.status.is_update())
    };
    let committed = match updater {
        Some(m) => mgr.xid_status(m.xid)? == XidStatus::Committed,
        None => false,
    };
    hdr.set_infomask(hdr.infomask() & !HEAP_XMAX_BITS);
    hdr.clear_infomask2_bits(HEAP_KEYS_UPDATED);
    match updater {
        Some(m) if committed => {
            hdr.set_xmax(m.xid);
            hdr.set_infomask(hdr.infomask() | HEAP_XMAX_COMMITTED);
            if m.status == MultiXactStatus::Update {
                hdr.set_infomask2_bits(HEAP_KEYS_UPDATED);
            }
        }
        _ => {
            hdr.set_xmax(Xid::INVALID);
            hdr.set_infomask(hdr.infomask() | HEAP_XMAX_INVALID);
            hdr.clear_infomask2_bits(HEAP_HOT_UPDATED);
            hdr.set_ctid(self_tid);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::MultiXactStatus::*;
    use super::*;

    fn m(xid: u64, status: MultiXactStatus) -> MultiXactMember {
        MultiXactMember { xid: Xid(xid), status }
    }

    #[test]
    fn statuses_map_to_strengths_and_back() {
        for mode in [
            TupleLockMode::KeyShare,
            TupleLockMode::Share,
            TupleLockMode::NoKeyUpdate,
            TupleLockMode::Update,
        ] {
            assert_eq!(status_mode(request_status(mode, false)), mode);
        }
        assert_eq!(request_status(TupleLockMode::NoKeyUpdate, true), NoKeyUpdate);
        assert!(NoKeyUpdate.is_update() && !ForUpdate.is_update());
    }

    #[test]
    fn hint_bits_show_the_strongest_member() {
        assert_eq!(
            hint_bits(&[m(1, ForKeyShare), m(2, ForShare)]),
            (HEAP_XMAX_SHR_LOCK | HEAP_XMAX_LOCK_ONLY, 0)
        );
        assert_eq!(hint_bits(&[m(1, ForKeyShare), m(2, NoKeyUpdate)]), (HEAP_XMAX_EXCL_LOCK, 0));
        assert_eq!(hint_bits(&[m(2, Update)]), (0, HEAP_KEYS_UPDATED));
        assert_eq!(
            hint_bits(&[m(2, ForUpdate)]),
            (HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_LOCK_ONLY, HEAP_KEYS_UPDATED)
        );
    }

    #[test]
    fn own_lock_of_the_same_xid_is_merged_at_the_stronger_status() {
        let old = [m(5, ForShare), m(6, ForKeyShare)];
        assert_eq!(merged_status(&old, Xid(5), ForKeyShare), ForShare);
        assert_eq!(merged_status(&old, Xid(5), ForUpdate), ForUpdate);
        assert_eq!(merged_status(&old, Xid(6), NoKeyUpdate), NoKeyUpdate);
    }

    #[test]
    fn a_single_lockers_bits_round_trip_through_the_header() {
        for mode in [
            TupleLockMode::KeyShare,
            TupleLockMode::Share,
            TupleLockMode::NoKeyUpdate,
            TupleLockMode::Update,
        ] {
            let mut tuple = [0u8; SIZEOF_HEAP_TUPLE_HEADER + 8];
            let mut hdr = HeapTupleHeader::new(&mut tuple[..]).unwrap();
            let (bits, bits2) = hint_bits(&[m(7, request_status(mode, false))]);
            hdr.set_infomask(bits);
            hdr.set_infomask2_bits(bits2);
            assert!(hdr.xmax_is_locked_only());
            assert_eq!(xmax_mode(&hdr), mode);
        }
    }
}
