//! What a statement runs with: its transaction and its backend's state,
//! borrowed apart ([`ExecParts`]) — PostgreSQL's `EState` together with the
//! backend globals its executor reads (`MyDatabaseId`, the GUCs,
//! `CurrentResourceOwner`).
//!
//! A client session (`session.rs`) lends one per statement; a background
//! worker lends one just the same, so the executor and the utility
//! commands never see who they run for. Nothing here outlives the
//! statement: the struct only borrows.
//!
//! # Subtransactions
//!
//! [`ExecParts::begin_subtransaction`] opens an internal subtransaction at
//! whatever depth the statement is (inside savepoints or other internal
//! ones), and [`ExecParts::release_subtransaction`] /
//! [`ExecParts::rollback_subtransaction`] end the innermost one
//! (PostgreSQL's `BeginInternalSubTransaction` and friends, which PL/pgSQL
//! `EXCEPTION` blocks use). Rolling back gives back what the level took:
//! its locks (advisory transaction locks too), its rows, its files, its
//! settings and its statistics (`xact` module).

use super::functions::pgstattuple;
use super::functions::sequence::SeqTable;
use super::lmgr::lock_relation_in;
use super::maintenance::Maintenance;
use super::plancache::PlanCache;
use super::{backend_status, sysviews};
use crate::activity::{ActivityTable, InterruptCheck};
use crate::catalog::namespace::{self, SearchPath};
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::{RelationDesc, RelationId};
use crate::catalog::schema::PG_DATABASE;
use crate::error::{Result, SqlError};
use crate::expr::{now_timestamptz, Expr, StatField};
use crate::optimizer::context::{PlannerContext, PlannerParts, ViewRows};
use crate::xact::{TransactionState, XactEnv};
use pg_query::protobuf::RangeVar;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::pgstat::PendingStats;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_guc::{GlobalConfig, SessionSettings, Settings};
use sluice_txn::lmgr::LockMode;
use sluice_txn::{Backend, IsolationLevel, Transaction};
use sluice_types::Datum;
use std::sync::Arc;

/// What statement execution borrows from its backend: the transaction apart
/// from everything else, so scans and row changes can run side by side.
pub struct ExecParts<'a> {
    /// The storage engine.
    pub engine: &'a Arc<Engine>,
    /// The running transaction, with its resource owners.
    pub txn: &'a mut TransactionState,
    /// Everything expression evaluation may consult.
    pub env: BackendEnv<'a>,
    /// What planning this statement did that a kept plan must repeat.
    pub plan_log: PlanLog,
    /// The session's kept plans.
    pub plans: &'a mut PlanCache,
}

impl ExecParts<'_> {
    /// type_catalog -- the types the running statement sees, along the
    /// session's search path.
    pub fn type_catalog(&mut self) -> TypeCatalog {
        let setting = self.env.settings.get_str("search_path");
        TypeCatalog::new(self.engine, self.env.database, self.txn, setting, self.env.user)
    }
}

/// What planning did that matters to keeping its plan (`plancache.rs`).
#[derive(Debug, Default)]
pub struct PlanLog {
    /// Table locks taken, in order.
    pub locks: Vec<(Oid, LockMode)>,
    /// Rows of a live view (pg_stat_activity, ...) were computed into the
    /// plan, which therefore shows one moment and cannot be kept.
    pub reads_live_state: bool,
}

/// Backend state visible to expressions (settings, identity, clocks): a
/// client session's, or a background worker's.
pub struct BackendEnv<'a> {
    /// The storage engine (for size functions).
    pub engine: &'a Arc<Engine>,
    /// Settings (current_setting, set_config, TimeZone).
    pub settings: &'a mut SessionSettings,
    /// Database OID.
    pub database: Oid,
    /// Database name.
    pub database_name: &'a str,
    /// Session user.
    pub user: &'a str,
    /// Backend pid.
    pub pid: u32,
    /// Transaction start time.
    pub txn_start: i64,
    /// Interrupt check.
    pub interrupts: &'a InterruptCheck,
    /// Every session's activity.
    pub activity: &'a ActivityTable,
    /// Server-wide settings (pg_reload_conf).
    pub config: &'a Arc<GlobalConfig>,
    /// The session's sequence state (nextval, currval, lastval).
    pub sequences: &'a mut SeqTable,
    /// The session's pending statistics (scans and row changes count here).
    pub stats: &'a mut PendingStats,
    /// The backend as an owner of heavyweight locks (advisory locks).
    pub lock_owner: sluice_txn::lmgr::LockOwner,
    /// Transaction locks for functions, which cannot borrow the
    /// transaction: given back when the savepoint level taking them ends.
    pub xact_locks: sluice_txn::LevelLocks,
    /// Where functions put warnings for the client; sent when the statement
    /// ends, before the client reads the result.
    pub notices: &'a mut Vec<SqlError>,
}

impl BackendEnv<'_> {
    /// search_path -- the session's `search_path`, resolved under `ctx`.
    pub fn search_path(&self, ctx: &VisibilityContext) -> Result<SearchPath> {
        let setting = self.settings.get_str("search_path");
        SearchPath::resolve(self.engine, self.database, ctx, &setting, self.user)
    }
}

/// What every backend of one server shares (PostgreSQL's shared memory).
pub struct Instance {
    /// The storage engine.
    pub engine: Arc<Engine>,
    /// Server-wide settings.
    pub config: Arc<GlobalConfig>,
    /// What every backend is doing (`pg_stat_activity`).
    pub activity: ActivityTable,
    /// VACUUM, ANALYZE, CLUSTER and REINDEX (the `sluice-maint` crate).
    pub maintenance: Arc<dyn Maintenance>,
}

/// A backend's own state apart from its transaction: who it is, its
/// settings, and what it keeps across transactions. A client session and a
/// background worker each have one.
pub struct BackendState {
    pub instance: Arc<Instance>,
    /// The backend's proc-array slot.
    pub backend: Arc<Backend>,
    pub database: Oid,
    pub database_name: String,
    pub user: String,
    pub settings: SessionSettings,
    pub interrupts: InterruptCheck,
    /// When the current transaction started (`now()`), in PostgreSQL's
    /// microseconds since 2000-01-01 UTC.
    pub txn_start: i64,
    /// The process id clients see.
    pub pid: u32,
    /// What nextval/currval/lastval remember (not transactional).
    pub sequences: SeqTable,
    /// Statistics counted by this backend's statements, flushed to the
    /// engine's table at every transaction end (`sluice_access::pgstat`).
    pub stats: PendingStats,
    /// Warnings functions raised during the current statement (the
    /// `pg_advisory_unlock` one), sent when it ends.
    pub notices: Vec<SqlError>,
    /// Kept SELECT plans (`plancache.rs`).
    pub plans: PlanCache,
    /// Prepared statements, SQL's and the protocol's (`prepared.rs`).
    pub prepared: super::prepared::PreparedStatements,
}

impl BackendState {
    /// new -- the state of a backend `pid` of `user` on database
    /// `database_name`, with a new proc-array slot.
    pub fn new(
        instance: Arc<Instance>,
        database_name: &str,
        user: &str,
        pid: u32,
        interrupts: InterruptCheck,
    ) -> Result<BackendState> {
        let backend = instance.engine.txns().register_backend(pid)?;
        let database = find_database(&instance, &backend, database_name)?;
        let settings = SessionSettings::new(instance.config.clone(), user, true);
        Ok(BackendState {
            instance,
            backend,
            database,
            database_name: database_name.to_string(),
            user: user.to_string(),
            settings,
            interrupts,
            txn_start: now_timestamptz(),
            pid,
            sequences: SeqTable::default(),
            stats: PendingStats::default(),
            notices: Vec::new(),
            plans: PlanCache::default(),
            prepared: Default::default(),
        })
    }

    /// parts -- a statement's view of `txn` and this backend.
    pub fn parts<'a>(&'a mut self, txn: &'a mut TransactionState) -> ExecParts<'a> {
        let xact_locks = txn.level_locks();
        ExecParts {
            engine: &self.instance.engine,
            txn,
            env: BackendEnv {
                engine: &self.instance.engine,
                settings: &mut self.settings,
                database: self.database,
                database_name: &self.database_name,
                user: &self.user,
                pid: self.pid,
                txn_start: self.txn_start,
                interrupts: &self.interrupts,
                activity: &self.instance.activity,
                config: &self.instance.config,
                sequences: &mut self.sequences,
                stats: &mut self.stats,
                lock_owner: self.backend.lock_owner(),
                xact_locks,
                notices: &mut self.notices,
            },
            plan_log: PlanLog::default(),
            plans: &mut self.plans,
        }
    }

    /// What a transaction's end updates besides the transaction.
    pub fn xact_env(&mut self) -> XactEnv<'_> {
        XactEnv {
            engine: &self.instance.engine,
            settings: &mut self.settings,
            stats: &mut self.stats,
            database: self.database,
        }
    }

    /// begin -- starts a transaction at `isolation` (StartTransaction): the
    /// settings' transaction level opens and `now()` is taken.
    pub fn begin(&mut self, isolation: IsolationLevel) -> TransactionState {
        self.settings.start_transaction();
        self.txn_start = now_timestamptz();
        TransactionState::new(self.backend.begin(isolation))
    }
}

/// find_database -- the OID of database `name`, which must accept connections.
fn find_database(instance: &Instance, backend: &Arc<Backend>, name: &str) -> Result<Oid> {
    let engine = &instance.engine;
    let mut txn = backend.begin(IsolationLevel::ReadCommitted);
    let rows =
        crate::catalog::scan(engine, 0, &PG_DATABASE, &mut txn, |r| r[1].as_str() == Some(name))?;
    txn.commit()?;
    match rows.first().map(|(_, r)| (&r[0], &r[5])) {
        Some((_, Datum::Bool(false))) => Err(SqlError::new(
            "55000",
            format!("database \"{name}\" is not currently accepting connections"),
        )),
        Some((Datum::Oid(oid), _)) => Ok(*oid),
        _ => Err(SqlError::new("3D000", format!("database \"{name}\" does not exist"))),
    }
}

/// BackendContext -- what utility commands and the executor's entry points
/// run with: a client session (`session.rs`) or a background worker
/// (`postmaster/bgworker.rs`). Commands that run as several transactions
/// (VACUUM of several tables, CREATE INDEX CONCURRENTLY) end one and start
/// the next through it, as PostgreSQL's do with CommitTransactionCommand
/// and StartTransactionCommand.
pub trait BackendContext {
    /// The backend's own state.
    fn state(&self) -> &BackendState;
    /// The backend's own state, to change.
    fn state_mut(&mut self) -> &mut BackendState;
    /// The running transaction's state; statements run only inside one.
    fn xact(&mut self) -> Result<&mut TransactionState>;
    /// parts -- the transaction and the backend, borrowed apart.
    fn parts(&mut self) -> Result<ExecParts<'_>>;
    /// restart_transaction -- commits the running transaction and starts
    /// the next one.
    fn restart_transaction(&mut self) -> Result<()>;
    /// Whether an explicit transaction block (BEGIN) is open.
    fn in_transaction_block(&self) -> bool;
    /// is_in_transaction_block -- PostgreSQL's IsInTransactionBlock: whether
    /// the statement runs inside BEGIN ... COMMIT or beside other statements
    /// of one query string, so it cannot end the transaction itself.
    fn is_in_transaction_block(&self) -> bool;
    /// prevent_transaction_block -- PostgreSQL's PreventInTransactionBlock:
    /// `what` (e.g. "VACUUM") must run as its own transaction (25001 if
    /// [`BackendContext::is_in_transaction_block`]).
    fn prevent_transaction_block(&self, what: &str) -> Result<()> {
        if self.is_in_transaction_block() {
            return Err(SqlError::new(
                "25001",
                format!("{what} cannot run inside a transaction block"),
            ));
        }
        Ok(())
    }
    /// Sets the isolation level of the transaction about to start
    /// (SET TRANSACTION outside a block).
    fn set_next_isolation(&mut self, level: IsolationLevel);

    /// The running transaction.
    fn txn(&mut self) -> Result<&mut Transaction> {
        Ok(&mut **self.xact()?)
    }

    /// The engine.
    fn engine(&self) -> &Arc<Engine> {
        &self.state().instance.engine
    }

    /// What every backend shares.
    fn instance(&self) -> Arc<Instance> {
        self.state().instance.clone()
    }

    /// The maintenance commands (VACUUM, ANALYZE, CLUSTER, REINDEX).
    fn maintenance(&self) -> Arc<dyn Maintenance> {
        self.state().instance.maintenance.clone()
    }

    /// Server-wide settings.
    fn instance_config(&self) -> Arc<GlobalConfig> {
        self.state().instance.config.clone()
    }

    /// The database's OID.
    fn database(&self) -> Oid {
        self.state().database
    }

    /// The user's name.
    fn user(&self) -> &str {
        &self.state().user
    }

    /// The process id clients see.
    fn pid(&self) -> u32 {
        self.state().pid
    }

    /// The backend's settings.
    fn settings(&mut self) -> &mut SessionSettings {
        &mut self.state_mut().settings
    }

    /// The backend's proc-array slot.
    fn backend(&self) -> &Arc<Backend> {
        &self.state().backend
    }

    /// The interrupt check.
    fn interrupts(&self) -> &InterruptCheck {
        &self.state().interrupts
    }

    /// search_path -- the session's `search_path`, resolved under the
    /// running transaction's snapshot.
    fn search_path(&mut self) -> Result<SearchPath> {
        let (engine, db) = (self.engine().clone(), self.database());
        let setting = self.state().settings.get_str("search_path");
        let user = self.user().to_string();
        let ctx = VisibilityContext::for_transaction(self.txn()?, engine.txns());
        SearchPath::resolve(&engine, db, &ctx, &setting, &user)
    }

    /// type_catalog -- the types the running statement sees, names
    /// resolved along the session's search path.
    fn type_catalog(&mut self) -> Result<TypeCatalog> {
        let (engine, db) = (self.engine().clone(), self.database());
        let setting = self.state().settings.get_str("search_path");
        let user = self.user().to_string();
        Ok(TypeCatalog::new(&engine, db, self.txn()?, setting, &user))
    }

    /// creation_namespace -- the schema a new relation named `rv` goes to
    /// (RangeVarGetAndCheckCreationNamespace), locked AccessShare so that
    /// it cannot be dropped or renamed before the new relation commits;
    /// looked up again after the lock until the answer stays the same.
    fn creation_namespace(&mut self, rv: &RangeVar) -> Result<Oid> {
        let mut locked = None;
        loop {
            let (engine, db, path) = (self.engine().clone(), self.database(), self.search_path()?);
            let ctx = VisibilityContext::for_transaction(self.txn()?, engine.txns());
            let oid = namespace::creation_namespace(&engine, db, &ctx, &path, rv)?;
            if locked == Some(oid) {
                return Ok(oid);
            }
            super::lmgr::lock_namespace(&mut self.parts()?, oid, LockMode::AccessShare)?;
            locked = Some(oid);
        }
    }

    /// schema_oid -- the schema named `name`; 3F000 if there is none.
    fn schema_oid(&mut self, name: &str) -> Result<Oid> {
        let (engine, db) = (self.engine().clone(), self.database());
        let ctx = VisibilityContext::for_transaction(self.txn()?, engine.txns());
        namespace::schema_oid(&engine, db, &ctx, name)
    }

    /// namespace_name -- the name of schema `oid` (which must exist).
    fn namespace_name(&mut self, oid: Oid) -> Result<String> {
        let (engine, db) = (self.engine().clone(), self.database());
        let ctx = VisibilityContext::for_transaction(self.txn()?, engine.txns());
        namespace::namespace_name(&engine, db, &ctx, oid)?
            .ok_or_else(|| SqlError::internal(format!("cache lookup failed for namespace {oid}")))
    }

    /// find_named -- the relation `rv` names, as the running transaction
    /// sees the catalogs: 42P01 if there is none
    /// (PostgreSQL's RangeVarGetRelid).
    fn find_named(&mut self, rv: &RangeVar) -> Result<RelationId> {
        self.find_relation(rv)?
            .ok_or_else(|| namespace::missing_relation(&namespace::written_name(rv)))
    }

    /// find_relation -- [`BackendContext::find_named`] for callers with
    /// their own answer to a missing relation (IF EXISTS).
    fn find_relation(&mut self, rv: &RangeVar) -> Result<Option<RelationId>> {
        let (engine, db, path) = (self.engine().clone(), self.database(), self.search_path()?);
        namespace::find(&engine, db, self.txn()?, &path, rv)
    }

    /// lookup_relation -- [`BackendContext::find_relation`] with the
    /// relation's description.
    fn lookup_relation(&mut self, rv: &RangeVar) -> Result<Option<RelationDesc>> {
        let (engine, db, path) = (self.engine().clone(), self.database(), self.search_path()?);
        namespace::lookup(&engine, db, self.txn()?, &path, rv)
    }
}

// PL/pgSQL's EXCEPTION blocks are the callers to come (issue 18); the unit
// test below is the one today.
impl ExecParts<'_> {
    /// The transaction and what a subtransaction's end updates besides it.
    fn split_xact(&mut self) -> (&mut TransactionState, XactEnv<'_>) {
        let env = XactEnv {
            engine: self.engine,
            settings: self.env.settings,
            stats: self.env.stats,
            database: self.env.database,
        };
        (self.txn, env)
    }

    /// begin_subtransaction -- opens an internal subtransaction
    /// (BeginInternalSubTransaction).
    pub fn begin_subtransaction(&mut self) {
        self.txn.begin_subtransaction(self.env.settings);
    }

    /// release_subtransaction -- the innermost subtransaction commits into
    /// its parent (ReleaseCurrentSubTransaction).
    pub fn release_subtransaction(&mut self) -> Result<()> {
        let (txn, mut env) = self.split_xact();
        txn.release_subtransaction(&mut env).map_err(|_| no_subtransaction())
    }

    /// rollback_subtransaction -- the innermost subtransaction is undone and
    /// ends (RollbackAndReleaseCurrentSubTransaction).
    pub fn rollback_subtransaction(&mut self) -> Result<()> {
        let (txn, mut env) = self.split_xact();
        txn.rollback_subtransaction(&mut env).map_err(|_| no_subtransaction())
    }
}

/// The planner's window on the statement (`optimizer/context.rs`): the
/// system views and row functions are computed here, in the executor,
/// which knows the backends and the server's live state.
impl PlannerContext for ExecParts<'_> {
    fn planner_parts(&mut self) -> PlannerParts<'_> {
        PlannerParts {
            engine: self.engine,
            txn: self.txn,
            database: self.env.database,
            settings: self.env.settings,
            user: self.env.user,
        }
    }

    fn lock_relation(&mut self, oid: Oid, mode: LockMode) -> Result<()> {
        lock_relation_in(self, oid, mode)
    }

    fn system_view_rows(&mut self, name: &str) -> Result<ViewRows> {
        sysviews::lookup(name, self)?
            .ok_or_else(|| SqlError::internal(format!("{name} is not a system view")))
    }

    fn backend_function_rows(&mut self, name: &str, args: &[Expr]) -> Result<ViewRows> {
        backend_status::function_rows(name, args, self)
    }

    fn stat_function_rows(
        &mut self,
        function: StatField,
        value: &Datum,
    ) -> Result<Vec<Vec<Datum>>> {
        pgstattuple::rows_for(self, function, value)
    }
}

/// XX000: ending a subtransaction when none is open is a caller's bug.
fn no_subtransaction() -> SqlError {
    SqlError::internal("no subtransaction is open")
}

#[cfg(test)]
mod tests {
    use super::BackendContext;
    use crate::testing::{instance, run, session};
    use sluice_guc::Settings;
    use sluice_txn::lmgr::{LockMode, LockTag, LockWaitParams};
    use sluice_txn::XidStatus;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    const NEVER: &dyn Fn() -> bool = &|| false;

    /// An internal subtransaction opened and rolled back from inside a
    /// statement's parts gives back everything it took, while what the
    /// enclosing levels took stays; a released one hands its locks to the
    /// parent.
    #[test]
    fn an_internal_subtransaction_rolls_back_what_it_took() {
        let dir = tempfile::tempdir().unwrap();
        let instance = instance(dir.path());
        let mut s = session(&instance, 4242);
        run(&mut s, "CREATE TABLE t (a int); BEGIN; SAVEPOINT user_level");
        let locks = instance.engine.txns().lock_manager();
        let proc = s.backend().proc();
        let (outer, inner) = (
            LockTag::Advisory { database: 1, key1: 0, key2: 1, form: 1 },
            LockTag::Advisory { database: 1, key1: 0, key2: 2, form: 1 },
        );
        let params = LockWaitParams::new(NEVER);
        let undone = Arc::new(AtomicBool::new(false));
        let mut parts = s.parts().unwrap();
        parts.env.xact_locks.lock(outer, LockMode::Exclusive, &params).unwrap();
        parts.begin_subtransaction();
        assert_eq!(parts.txn.depth(), 2, "inside the user's savepoint");
        parts.env.xact_locks.lock(inner, LockMode::Exclusive, &params).unwrap();
        let subxid = parts.txn.assign_xid();
        parts.env.settings.set("application_name", "inside").unwrap();
        assert_eq!(&*parts.env.settings.get_str("application_name"), "inside");
        let flag = undone.clone();
        parts.txn.at_transaction_end(false, move |_| flag.store(true, Ordering::SeqCst));
        parts.rollback_subtransaction().unwrap();

        assert_eq!(parts.txn.depth(), 1);
        assert!(!locks.holds(proc, inner, LockMode::Exclusive), "its lock went");
        assert!(locks.holds(proc, outer, LockMode::Exclusive), "the parent's stayed");
        assert!(undone.load(Ordering::SeqCst), "its at-abort work ran");
        assert_eq!(&*parts.env.settings.get_str("application_name"), "", "its SET was undone");
        assert!(parts.rollback_subtransaction().is_ok(), "the user's level is next");
        assert_eq!(parts.txn.depth(), 0);
        assert!(parts.rollback_subtransaction().is_err(), "no level left");

        parts.begin_subtransaction();
        parts.env.xact_locks.lock(inner, LockMode::Share, &params).unwrap();
        parts.release_subtransaction().unwrap();
        assert!(locks.holds(proc, inner, LockMode::Share), "released into the top level");
        drop(parts);
        run(&mut s, "COMMIT");
        assert!(!locks.holds(proc, inner, LockMode::Share));
        assert!(!locks.holds(proc, outer, LockMode::Exclusive));
        let status = instance.engine.txns().xid_status(subxid).unwrap();
        assert_eq!(status, XidStatus::Aborted);
    }
}
