//! Deadlock detection (PostgreSQL's `deadlock.c`, simplified).
//!
//! A waiter that has slept for `deadlock_timeout` locks every partition of the
//! lock table and builds the **wait-for graph**: one node per waiting owner,
//! an edge from A to B when B keeps A waiting —
//!
//! * a *hard* edge when B holds a mode that conflicts with A's request;
//! * a *soft* edge when B is queued before A for a conflicting mode (the
//!   wake-up rule serves the queue in order, so A cannot pass B).
//!
//! It then searches depth-first for a path from itself back to itself. If
//! there is one, *it* is the victim: its request leaves the queue and it fails
//! with "deadlock detected", whose DETAIL lists the cycle, starting with itself:
//!
//! ```text
//! Process 1234 waits for ShareLock on transaction 567; blocked by process 1235.
//! Process 1235 waits for ShareLock on transaction 566; blocked by process 1234.
//! ```
//!
//! Cancelling one request breaks the cycle, so exactly one member fails; the
//! others find no cycle when they check (the victim is no longer waiting) and
//! are granted once the victim's transaction ends. Cycles that do not pass
//! through the checker are left to their own members. Because the check runs
//! with every partition locked, two checkers never see half of each other's
//! changes.
//!
//! # Soft deadlocks
//!
//! A cycle with a soft edge may be no deadlock at all: the queue order is
//! ours to change. As PostgreSQL's detector does, before choosing a victim
//! the checker tries reversing each soft edge of the cycle in turn, the one
//! found deepest in the search first (PostgreSQL's order): the waiter moves
//! to just before the waiter it was queued behind. If no member of the
//! cycle is then on a cycle, the new order stands and whoever it lets go is
//! granted at once; otherwise the queue goes back as it was. PostgreSQL
//! goes further — it combines several reversals and sorts whole queues
//! topologically — which matters only for arrangements of three or more
//! soft edges; sluice tries one reversal at a time and otherwise aborts the
//! checker. The queue-jumping rule for owners that already hold the lock
//! (see `lock.rs`), which removes the most frequent soft cycles before they
//! form, is implemented too.
//!
//! The checker repeats its check every `deadlock_timeout` while it waits
//! (PostgreSQL checks once), which costs little and means a cycle can never be
//! missed because the graph changed between checks.

use super::lock::{Lock, Waiter};
use super::modes::LockMode;
use super::LockTag;
use crate::procarray::ProcId;
use std::collections::{HashMap, HashSet};

/// One waiting process in a deadlock report: who waits for which lock.
#[derive(Clone, Copy, Debug)]
pub(super) struct WaitStep {
    /// The waiter's process id.
    pub(super) pid: u32,
    /// The mode it asked for.
    pub(super) mode: LockMode,
    /// The lock it asked for.
    pub(super) tag: LockTag,
}

/// report -- PostgreSQL's DETAIL for a deadlock (DeadLockReport): one line per
/// process of `cycle`, each blocked by the next, the last by the first.
pub(super) fn report(cycle: &[WaitStep]) -> String {
    let line = |(i, step): (usize, &WaitStep)| {
        let next = cycle[(i + 1) % cycle.len()].pid;
        format!(
            "Process {} waits for {} on {}; blocked by process {next}.",
            step.pid, step.mode, step.tag
        )
    };
    cycle.iter().enumerate().map(line).collect::<Vec<_>>().join("\n")
}

/// A waiting owner in the wait-for graph.
struct WaitNode {
    /// What it waits for.
    step: WaitStep,
    /// Who keeps it waiting (hard edges first, then soft).
    blockers: Vec<ProcId>,
}

/// The wait-for graph of the whole lock table at one instant.
pub(super) struct WaitForGraph {
    nodes: HashMap<ProcId, WaitNode>,
}

impl WaitForGraph {
    /// build -- the graph of every waiter in `locks`, which must be the whole
    /// table read under all partition locks.
    pub(super) fn build<'a>(locks: impl Iterator<Item = (&'a LockTag, &'a Lock)>) -> WaitForGraph {
        let mut nodes = HashMap::new();
        for (&tag, lock) in locks {
            for (position, Waiter { owner, mode, .. }) in lock.waiters.iter().enumerate() {
                let blockers = lock.blockers(position).into_iter().map(|b| b.proc).collect();
                let step = WaitStep { pid: owner.pid, mode: *mode, tag };
                nodes.insert(owner.proc, WaitNode { step, blockers });
            }
        }
        WaitForGraph { nodes }
    }

    /// cycle_through -- a cycle of waits from `start` back to it, as its
    /// members starting with `start`, or `None` (FindLockCycle): each waits
    /// for the next, the last for `start`.
    pub(super) fn cycle_through(&self, start: ProcId) -> Option<Vec<ProcId>> {
        let mut path = vec![start];
        let mut visited = HashSet::from([start]);
        self.search(start, &mut path, &mut visited).then_some(path)
    }

    /// The steps of `cycle`'s members, for the report.
    pub(super) fn steps(&self, cycle: &[ProcId]) -> Vec<WaitStep> {
        cycle.iter().map(|proc| self.nodes[proc].step).collect()
    }

    /// What `proc` waits for, if it waits.
    pub(super) fn waits_for(&self, proc: ProcId) -> Option<WaitStep> {
        self.nodes.get(&proc).map(|n| n.step)
    }

    /// search -- depth-first: extends `path` (ending at `from`) until an edge
    /// leads back to its first element. A node fully explored without success
    /// cannot lead back later, so `visited` is never cleared.
    fn search(&self, from: ProcId, path: &mut Vec<ProcId>, visited: &mut HashSet<ProcId>) -> bool {
        for &next in &self.nodes[&from].blockers {
            if next == path[0] {
                return true;
            }
            // Owners that are not waiting are running: no edge leaves them.
            if !self.nodes.contains_key(&next) || !visited.insert(next) {
                continue;
            }
            path.push(next);
            if self.search(next, path, visited) {
                return true;
            }
            path.pop();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_common::Xid;

    #[test]
    fn reports_read_like_postgresqls() {
        let steps = [
            WaitStep { pid: 1234, mode: LockMode::Share, tag: LockTag::TransactionId(Xid(567)) },
            WaitStep { pid: 1235, mode: LockMode::Share, tag: LockTag::TransactionId(Xid(566)) },
        ];
        assert_eq!(
            report(&steps),
            "Process 1234 waits for ShareLock on transaction 567; blocked by process 1235.\n\
             Process 1235 waits for ShareLock on transaction 566; blocked by process 1234."
        );
    }
}
