//! The after-trigger event queue (the AFTER trigger half of PostgreSQL's
//! `commands/trigger.c`); SET CONSTRAINTS is in `commands/trigger.rs`.
//!
//! PostgreSQL enforces foreign keys with AFTER ROW triggers: every row a
//! statement inserts, updates or deletes in a table with a foreign key
//! queues an event, and the events run when the statement ends
//! (AfterTriggerEndQuery) — or, for a deferred constraint, when the
//! transaction commits (AfterTriggerFireDeferred) or SET CONSTRAINTS makes
//! it immediate. sluice has no user triggers yet; its events are the
//! referential-integrity ones (`executor/ri_triggers`), queued the same way
//! and at the same moments, so a statement sees the same errors at the
//! same points as in PostgreSQL.
//!
//! # Levels
//!
//! Queries nest: a referential action (ON DELETE CASCADE) runs a DELETE on
//! the referencing table, whose own events run when that inner query ends,
//! before the outer query's next event. [`AfterTriggers::begin_query`]
//! opens a level, [`AfterTriggers::end_query`] hands back its events.
//!
//! Deferred events wait in one list, each marked with the subtransaction
//! depth that queued it: rolling back to a savepoint drops the events of
//! the levels it undoes, releasing one hands them to the parent. SET
//! CONSTRAINTS' state follows the same levels: a rollback restores what
//! was in force when the level began.

use crate::catalog::foreign_key::{FkAction, ForeignKey};
use sluice_common::{ItemPointer, Oid};
use sluice_types::Datum;
use std::sync::Arc;

/// What a referential event asks for once its time comes.
#[derive(Clone, Debug)]
pub enum RiEvent {
    /// A referencing row version was written: its key (`values`, in key
    /// order) must exist in the referenced table, if that version is still
    /// live when the check runs (RI_FKey_check).
    Check { tid: ItemPointer, values: Vec<Datum> },
    /// A referenced row was deleted (`new` is None) or its key changed
    /// from `old` to `new` (the RI_FKey_*_del and RI_FKey_*_upd triggers).
    Referenced { old: Vec<Datum>, new: Option<Vec<Datum>> },
}

/// One queued event.
#[derive(Clone, Debug)]
pub struct Event {
    /// The foreign key it enforces.
    pub key: Arc<ForeignKey>,
    pub ri: RiEvent,
    /// The subtransaction depth that queued it.
    depth: usize,
}

impl Event {
    /// A new event for `key`, queued at subtransaction `depth`.
    pub fn new(key: Arc<ForeignKey>, ri: RiEvent, depth: usize) -> Event {
        Event { key, ri, depth }
    }

    /// Whether the event can wait for commit: only the check on the
    /// referencing side and the NO ACTION check on the referenced side are
    /// deferrable in PostgreSQL; RESTRICT and the actions run at once.
    fn deferrable(&self) -> bool {
        self.key.deferrable
            && match &self.ri {
                RiEvent::Check { .. } => true,
                RiEvent::Referenced { new: None, .. } => self.key.on_delete == FkAction::NoAction,
                RiEvent::Referenced { new: Some(_), .. } => {
                    self.key.on_update == FkAction::NoAction
                }
            }
    }
}

/// SET CONSTRAINTS' state: ALL, then named constraints set since.
#[derive(Clone, Debug, Default)]
struct Deferral {
    /// `SET CONSTRAINTS ALL DEFERRED` (true) or `IMMEDIATE` (false).
    all: Option<bool>,
    /// Constraints named since ALL was last set.
    named: Vec<(Oid, bool)>,
}

impl Deferral {
    /// Whether `key` is deferred now.
    fn defers(&self, key: &ForeignKey) -> bool {
        if let Some(&(_, deferred)) = self.named.iter().rev().find(|(oid, _)| *oid == key.oid) {
            return deferred;
        }
        self.all.unwrap_or(key.initially_deferred)
    }
}

/// A transaction's after-trigger state (see the module doc).
#[derive(Debug, Default)]
pub struct AfterTriggers {
    /// Events of each running query, innermost last.
    queries: Vec<Vec<Event>>,
    /// Events of deferred constraints, in queueing order.
    deferred: Vec<Event>,
    deferral: Deferral,
    /// The state each open subtransaction began with, innermost last.
    saved: Vec<(usize, Deferral)>,
}

impl AfterTriggers {
    /// begin_query -- opens the level of a query about to run; returns the
    /// level, for [`AfterTriggers::end_query`].
    pub fn begin_query(&mut self) -> usize {
        self.queries.push(Vec::new());
        self.queries.len()
    }

    /// end_query -- closes `level` (and any inner level an error left
    /// open) and returns the events its query queued that must run now;
    /// those of deferred constraints move to the deferred list.
    pub fn end_query(&mut self, level: usize) -> Vec<Event> {
        if self.queries.len() < level {
            return Vec::new();
        }
        let mut closed = self.queries.split_off(level - 1);
        let events = std::mem::take(&mut closed[0]);
        let (deferred, now): (Vec<Event>, Vec<Event>) =
            events.into_iter().partition(|e| e.deferrable() && self.deferral.defers(&e.key));
        self.deferred.extend(deferred);
        now
    }

    /// abandon_query -- the query of `level` failed: its events, and those
    /// of any inner level, are dropped.
    pub fn abandon_query(&mut self, level: usize) {
        self.queries.truncate(level.saturating_sub(1));
    }

    /// queue -- adds events to the innermost running query (a statement
    /// run outside any query level, which does not happen, queues nothing).
    pub fn queue(&mut self, events: impl IntoIterator<Item = Event>) {
        if let Some(query) = self.queries.last_mut() {
            query.extend(events);
        }
    }

    /// take_deferred -- the deferred events to run at commit (all of them).
    pub fn take_deferred(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.deferred)
    }

    /// set_constraints -- SET CONSTRAINTS `which` (None: ALL) DEFERRED or
    /// IMMEDIATE; returns the deferred events that become immediate, which
    /// the caller runs at once.
    pub fn set_constraints(&mut self, which: Option<&[Oid]>, deferred: bool) -> Vec<Event> {
        match which {
            None => self.deferral = Deferral { all: Some(deferred), named: Vec::new() },
            Some(oids) => self.deferral.named.extend(oids.iter().map(|&oid| (oid, deferred))),
        }
        if deferred {
            return Vec::new();
        }
        let (now, still): (Vec<Event>, Vec<Event>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|e| !self.deferral.defers(&e.key));
        self.deferred = still;
        now
    }

    /// begin_subtransaction -- a level at `depth` opens.
    pub fn begin_subtransaction(&mut self, depth: usize) {
        self.saved.push((depth, self.deferral.clone()));
    }

    /// release_subtransaction -- the levels from `depth` on merge into
    /// their parent, with their deferred events.
    pub fn release_subtransaction(&mut self, depth: usize) {
        self.saved.retain(|(d, _)| *d < depth);
        for event in self.deferred.iter_mut().filter(|e| e.depth >= depth) {
            event.depth = depth - 1;
        }
    }

    /// rollback_subtransaction -- the levels from `depth` on are undone:
    /// their deferred events go, and SET CONSTRAINTS is as it was when the
    /// first of them began.
    pub fn rollback_subtransaction(&mut self, depth: usize) {
        if let Some(i) = self.saved.iter().position(|(d, _)| *d >= depth) {
            self.deferral = self.saved[i].1.clone();
            self.saved.truncate(i);
        }
        self.deferred.retain(|e| e.depth < depth);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::foreign_key::FkAction;

    fn key(oid: Oid, deferrable: bool, initially_deferred: bool) -> Arc<ForeignKey> {
        Arc::new(ForeignKey {
            oid,
            name: format!("k{oid}"),
            table: 1,
            columns: vec![1],
            referenced: 2,
            ref_columns: vec![1],
            index: 3,
            on_update: FkAction::NoAction,
            on_delete: FkAction::Cascade,
            match_full: false,
            deferrable,
            initially_deferred,
            validated: true,
        })
    }

    fn check(key: &Arc<ForeignKey>, depth: usize) -> Event {
        let ri = RiEvent::Check { tid: ItemPointer::new(0, 1), values: vec![Datum::Int4(1)] };
        Event::new(key.clone(), ri, depth)
    }

    #[test]
    fn deferred_checks_wait_and_actions_never_do() {
        let mut t = AfterTriggers::default();
        let deferred = key(10, true, true);
        let level = t.begin_query();
        let delete = RiEvent::Referenced { old: vec![Datum::Int4(1)], new: None };
        t.queue([check(&deferred, 0), Event::new(deferred.clone(), delete, 0)]);
        let now = t.end_query(level);
        assert_eq!(now.len(), 1, "ON DELETE CASCADE runs at the end of the statement");
        assert!(matches!(now[0].ri, RiEvent::Referenced { .. }));
        assert_eq!(t.take_deferred().len(), 1);
    }

    #[test]
    fn set_constraints_immediate_hands_back_what_waited() {
        let mut t = AfterTriggers::default();
        let k = key(10, true, false);
        t.set_constraints(None, true);
        let level = t.begin_query();
        t.queue([check(&k, 0)]);
        assert!(t.end_query(level).is_empty());
        assert_eq!(t.set_constraints(Some(&[10]), false).len(), 1);
        assert!(t.take_deferred().is_empty());
    }

    #[test]
    fn rollback_to_savepoint_drops_its_events_and_restores_the_state() {
        let mut t = AfterTriggers::default();
        let k = key(10, true, true);
        let level = t.begin_query();
        t.queue([check(&k, 0)]);
        t.end_query(level);
        t.begin_subtransaction(1);
        assert!(t.set_constraints(Some(&[99]), false).is_empty(), "another constraint");
        let level = t.begin_query();
        t.queue([check(&k, 1)]);
        assert!(t.end_query(level).is_empty(), "still deferred");
        t.rollback_subtransaction(1);
        assert_eq!(t.take_deferred().len(), 1, "only the event from before the savepoint");
        assert!(t.deferral.named.is_empty());
    }

    #[test]
    fn a_failed_query_leaves_no_level_behind() {
        let mut t = AfterTriggers::default();
        let outer = t.begin_query();
        let _inner = t.begin_query();
        t.queue([check(&key(10, false, false), 0)]);
        t.abandon_query(outer);
        assert!(t.queries.is_empty());
    }
}
