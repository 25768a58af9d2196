//! What the planner asks of the backend it plans for (PostgreSQL's planner
//! reads the same things through backend globals: `MyDatabaseId`, the
//! GUCs, the active snapshot, the lock manager).
//!
//! The planner runs below the executor, yet it must look tables up under
//! the statement's snapshot, lock them, read the cost settings and — for
//! the system views and row functions sluice computes from live state
//! rather than reads from tables — get their rows. [`PlannerContext`] is
//! that narrow window: the executor's `ExecParts` implements it, for a
//! client session and for a background worker alike, and the planner never
//! names either.
//!
//! # Invariants
//! * Every table lock the planner takes goes through
//!   [`PlannerContext::lock_relation`], which remembers it: a kept plan
//!   retakes exactly those locks before it runs again (`plancache.rs`).
//! * Asking for live rows marks the plan as showing one moment: it is not
//!   kept (the implementation notes that itself).

use crate::catalog::namespace::SearchPath;
use crate::catalog::pg_type::TypeCatalog;
use crate::error::Result;
use crate::expr::{Expr, ScopeColumn, StatField};
use crate::xact::TransactionState;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_guc::{SessionSettings, Settings};
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;
use std::sync::Arc;

/// The statement's engine, transaction, database and settings, borrowed
/// apart so the planner can hold a snapshot and read settings at once.
pub struct PlannerParts<'p> {
    /// The storage engine.
    pub engine: &'p Arc<Engine>,
    /// The running transaction (its snapshot sees the catalogs).
    pub txn: &'p mut TransactionState,
    /// The database planned in.
    pub database: Oid,
    /// The session's settings (the cost settings, `search_path`).
    pub settings: &'p SessionSettings,
    /// The session user (`$user` in `search_path`).
    pub user: &'p str,
}

impl PlannerParts<'_> {
    /// search_path -- the session's `search_path`, resolved under the
    /// statement's snapshot.
    pub fn search_path(&mut self) -> Result<SearchPath> {
        let ctx = VisibilityContext::for_transaction(self.txn, self.engine.txns());
        let setting = self.settings.get_str("search_path");
        SearchPath::resolve(self.engine, self.database, &ctx, &setting, self.user)
    }

    /// type_catalog -- the types the statement sees, by its search path.
    pub fn type_catalog(&mut self) -> TypeCatalog {
        let setting = self.settings.get_str("search_path");
        TypeCatalog::new(self.engine, self.database, self.txn, setting, self.user)
    }
}

/// A system view's or row function's columns and current rows.
pub struct ViewRows {
    /// Columns, in PostgreSQL's order.
    pub columns: Vec<ScopeColumn>,
    /// Rows.
    pub rows: Vec<Vec<Datum>>,
}

/// What planning a statement needs from its backend.
pub trait PlannerContext {
    /// planner_parts -- the engine, transaction, database and settings.
    fn planner_parts(&mut self) -> PlannerParts<'_>;

    /// lock_relation -- takes table lock `mode` on `oid` for the statement,
    /// honouring `lock_timeout`, and remembers it for a kept plan.
    fn lock_relation(&mut self, oid: Oid, mode: LockMode) -> Result<()>;

    /// system_view_rows -- the rows of system view `name` (a name
    /// [`crate::catalog::system_views::is_system_view`] accepts).
    fn system_view_rows(&mut self, name: &str) -> Result<ViewRows>;

    /// backend_function_rows -- the rows of backend function `name` (one
    /// [`crate::catalog::system_views::is_backend_function`] accepts)
    /// called with constant `args`.
    fn backend_function_rows(&mut self, name: &str, args: &[Expr]) -> Result<ViewRows>;

    /// stat_function_rows -- the rows of pgstattuple's `function` for the
    /// relation `value` names (none if it names no relation).
    fn stat_function_rows(&mut self, function: StatField, value: &Datum)
        -> Result<Vec<Vec<Datum>>>;
}
