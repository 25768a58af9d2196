//! A session's cache of query plans (SELECT, INSERT, UPDATE, DELETE), by
//! query text (PostgreSQL's `utils/cache/plancache.c`, for the generic-plan
//! case).
//!
//! Planning a short query (name lookups, column analysis, statistics, path
//! choice) costs more than running it through an index. A prepared
//! statement runs the same text many times, and so do clients that send
//! identical text (`BEGIN`-wrapped loops, ORMs); the plan of the first run
//! is kept here and reused while it is still right.
//!
//! # When a kept plan is still right
//!
//! A plan depends on three things outside its text, each checked before
//! reuse:
//!
//! * **the catalogs** it was planned against: tables, columns, indexes,
//!   statistics. The plan remembers the CSN of the snapshot it was planned
//!   under; the running statement's snapshot must see the same catalog
//!   commits (`sluice_txn::CatalogChanges::same_catalogs`). Plans made by a
//!   transaction that wrote catalogs are not kept.
//! * **the settings** (`search_path`, `enable_*`, costs, `DateStyle` for
//!   literals): the session's settings change counter must not have moved.
//! * **the parameter types** the client gave: part of the key.
//!
//! Plans that hold data computed while planning (system views such as
//! `pg_stat_activity` are read at planning time) are never kept.
//!
//! # Locks
//!
//! Planning takes the statement's table locks. A reused plan is not planned,
//! so the locks planning took are recorded with the plan and taken again
//! before the statement's snapshot (PostgreSQL's AcquireExecutorLocks): a
//! DDL that committed while the statement waited for a lock then shows up
//! as a catalog change, and the statement plans afresh.
//!
//! The cache is per session and bounded: when it holds `CAPACITY` plans it
//! is emptied (statements sent once with literal values would otherwise
//! fill it).

use crate::optimizer::modify::ModifyPlan;
use crate::optimizer::select::Planned;
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_txn::{CatalogChanges, Csn, Snapshot};
use sluice_types::SqlType;
use std::collections::HashMap;
use std::sync::Arc;

/// Plans kept per session before the cache starts over.
const CAPACITY: usize = 256;

/// A plan of either kind.
#[derive(Clone)]
pub(crate) enum KeptPlan {
    /// A SELECT's plan tree and columns.
    Select(Arc<Planned>),
    /// An INSERT, UPDATE or DELETE.
    Modify(Arc<ModifyPlan>),
}

/// A kept plan and what it depends on.
pub(crate) struct CachedPlan {
    /// The plan.
    pub plan: KeptPlan,
    /// Table locks planning took, to take again before each run.
    pub locks: Vec<(Oid, LockMode)>,
    /// CSN of the snapshot planning read the catalogs under.
    built_at: Csn,
    /// The settings change counter at planning time.
    settings: u64,
}

/// Parameter types as the client gave them (before inference).
type GivenTypes = Vec<Option<SqlType>>;

/// The cache: query text → the plans for each set of given parameter types.
#[derive(Default)]
pub struct PlanCache {
    plans: HashMap<String, Vec<(GivenTypes, Arc<CachedPlan>)>>,
}

/// What a plan was made under, for [`PlanCache::put`].
pub(crate) struct PlannedUnder<'a> {
    /// The statement's snapshot.
    pub snapshot: &'a Snapshot,
    /// The settings change counter.
    pub settings: u64,
    /// Table locks planning took.
    pub locks: Vec<(Oid, LockMode)>,
}

impl PlanCache {
    /// candidate -- the kept plan for `text` with `param_types`, if any; the
    /// caller takes its locks, then asks [`CachedPlan::still_valid`].
    pub(crate) fn candidate(
        &self,
        text: &str,
        param_types: &[Option<SqlType>],
        settings: u64,
    ) -> Option<Arc<CachedPlan>> {
        let (_, plan) = self.plans.get(text)?.iter().find(|(given, _)| given == param_types)?;
        (plan.settings == settings).then(|| plan.clone())
    }

    /// put -- keeps `plan` for `text` with the given `param_types`
    /// (before inference), unless `under.snapshot`'s transaction wrote
    /// catalogs.
    pub(crate) fn put(
        &mut self,
        (text, given): (&str, GivenTypes),
        plan: KeptPlan,
        under: PlannedUnder,
        changes: &CatalogChanges,
    ) {
        if !changes.may_fill(under.snapshot) {
            return;
        }
        if self.plans.len() >= CAPACITY {
            self.plans.clear();
        }
        let plan = CachedPlan {
            plan,
            locks: under.locks,
            built_at: under.snapshot.csn,
            settings: under.settings,
        };
        let plans = self.plans.entry(text.to_string()).or_default();
        plans.retain(|(types, _)| *types != given);
        plans.push((given, Arc::new(plan)));
    }
}

impl CachedPlan {
    /// still_valid -- whether the plan was made against the catalogs
    /// `snapshot` sees (taken after the plan's locks).
    pub fn still_valid(&self, snapshot: &Snapshot, changes: &CatalogChanges) -> bool {
        changes.same_catalogs(self.built_at, snapshot)
    }
}
