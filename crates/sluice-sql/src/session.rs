//! A client session: statements in, results out, inside PostgreSQL's
//! transaction-block rules (PostgreSQL's `tcop/postgres.c` + `xact.c`'s
//! transaction block state machine).
//!
//! # Transaction blocks
//!
//! ```text
//!            BEGIN                       error
//!   Idle ──────────────► Explicit ─────────────► Failed
//!    │ ▲                  │   COMMIT/ROLLBACK      │ COMMIT/ROLLBACK
//!    │ └──────────────────┴────────────────────────┘ (both roll back a failed block)
//!    │ any other statement
//!    ▼
//!  Implicit ── end of the query string (simple protocol) or Sync (extended):
//!              commit; error: roll back
//! ```
//!
//! Without BEGIN, the statements of one simple-query string share one implicit
//! transaction, as in PostgreSQL; a BEGIN inside the string turns it into an
//! explicit block. The error that fails a block rolls its transaction back at
//! once — locks released, changes dead — and only the block remains, in which
//! every statement but COMMIT/ROLLBACK gets 25P02 (both end it with ROLLBACK).
//! Inside a savepoint only the innermost savepoint level is rolled back at the
//! error; the block stays failed until ROLLBACK TO a savepoint (which reopens
//! it, the transaction going on) or ROLLBACK. Savepoint levels also scope
//! settings (SET) and pending file deletions: ROLLBACK TO undoes what the
//! levels it ends did.
//! Under READ COMMITTED every statement takes a new snapshot; every
//! statement ends with a command-counter increment so the next one sees its
//! changes.
//!
//! Statistics the statements count (`sluice_access::pgstat`) follow the
//! same levels: savepoint ends and the transaction end apply PostgreSQL's
//! rules, and every transaction end flushes them to the shared table.
//!
//! Files created by a transaction are removed if it aborts, files of dropped
//! relations only once it commits (PostgreSQL's pending deletes).
//!
//! # Timeouts
//!
//! `statement_timeout` and `transaction_timeout` are deadlines the interrupt
//! check compares with the clock, so every place that already checks for cancel
//! (scans, lock and row waits, `pg_sleep`) also times out: a statement past its
//! deadline fails with 57014, a transaction past its own ends the session with
//! FATAL 25P04 (PostgreSQL 17's behaviour). While the session waits for the
//! client, [`Session::idle_timeout`] tells the protocol layer how long it may
//! wait (`idle_in_transaction_session_timeout`, `idle_session_timeout`, what is
//! left of `transaction_timeout`).

use crate::activity::{Activity, ActivityTable, BackendSignal};
use crate::catalog::schema::{PG_CATALOG_NAMESPACE, PG_DATABASE, PUBLIC_NAMESPACE};
use crate::error::{Result, SqlError};
use crate::parser::{parse, RawStatement};
use crate::plancache::PlanCache;
use crate::sink::QuerySink;
use crate::{commands, executor};
use pg_query::NodeEnum;
use sluice_access::pgstat::PendingStats;
use sluice_access::Engine;
use sluice_common::{ForkNumber, Oid, RelFileLocator, Xid};
use sluice_guc::{GlobalConfig, NestLevel, SessionSettings, Settings};
use sluice_txn::lmgr::LockMode;
use sluice_txn::{Backend, IsolationLevel, PrepareContext, Transaction, TwoPhaseError};
use sluice_types::datetime::TimeZone;
use sluice_types::{Context, DateStyle, Datum, IntervalStyle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What every session of one server shares.
pub struct Instance {
    /// The storage engine.
    pub engine: Arc<Engine>,
    /// Server-wide settings.
    pub config: Arc<GlobalConfig>,
    /// What every session is doing (`pg_stat_activity`).
    pub activity: ActivityTable,
}

/// Checks for cancel, terminate and timeouts (PostgreSQL's CHECK_FOR_INTERRUPTS).
pub type InterruptCheck = Arc<dyn Fn() -> Result<()> + Send + Sync>;

/// Where the session is in PostgreSQL's transaction block state machine.
enum Block {
    /// No transaction.
    Idle,
    /// A transaction without BEGIN, ended by the end of the query string/Sync.
    Implicit(Transaction),
    /// Inside BEGIN ... COMMIT.
    Explicit(Transaction),
    /// Inside a block that had an error: only ROLLBACK/COMMIT (and ROLLBACK
    /// TO) are accepted. Without savepoints the transaction itself was rolled
    /// back when the error happened (`None`), so its locks are gone and its
    /// changes dead at once (PostgreSQL's AbortTransaction runs before the
    /// block reaches TBLOCK_ABORT); with savepoints only the innermost level
    /// was (TBLOCK_SUBABORT), and the transaction waits for ROLLBACK TO.
    Failed(Option<Transaction>),
}

/// The transaction state the protocol reports in ReadyForQuery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnStatus {
    /// Not in a block ('I').
    Idle,
    /// In a block ('T').
    InBlock,
    /// In a failed block ('E').
    Failed,
}

/// A file to remove when the transaction ends one way or the other.
struct PendingDelete {
    locator: RelFileLocator,
    /// Remove at commit (a dropped table) rather than at abort (a created one).
    at_commit: bool,
    /// The savepoint level that registered it (0: the top level).
    depth: usize,
    /// At commit, keep the file until no snapshot older than this xid (the
    /// transaction's) remains: a file swapped for a rewritten copy.
    unseen_after: Option<Xid>,
}

/// Work for the end of the transaction beyond removing relation files
/// (a database directory): whether it runs at commit or at abort, the
/// savepoint level that registered it, and what.
type PendingAction = (bool, usize, Box<dyn FnOnce(&Engine) + Send>);

/// One client session.
pub struct Session {
    instance: Arc<Instance>,
    backend: Arc<Backend>,
    database: Oid,
    database_name: String,
    user: String,
    settings: SessionSettings,
    block: Block,
    interrupts: InterruptCheck,
    pending_deletes: Vec<PendingDelete>,
    /// Isolation level requested by BEGIN or SET TRANSACTION for the next/current transaction.
    next_isolation: Option<IsolationLevel>,
    /// When the current transaction started (`now()`), in PostgreSQL's
    /// microseconds since 2000-01-01 UTC.
    txn_start: i64,
    /// The backend process id clients see.
    pid: u32,
    /// When the running statement and transaction time out.
    deadlines: Arc<Deadlines>,
    /// The running query string has several statements, which share one
    /// implicit transaction block.
    multi_statement: bool,
    /// What nextval/currval/lastval remember (not transactional).
    sequences: commands::sequence::functions::SeqTable,
    /// Statistics counted by this session's statements, flushed to the
    /// engine's table at every transaction end (`sluice_access::pgstat`).
    stats: PendingStats,
    /// Warnings functions raised during the current statement (the
    /// `pg_advisory_unlock` one), sent when it ends.
    notices: Vec<SqlError>,
    /// Work registered with [`Session::at_transaction_end`].
    pending_actions: Vec<PendingAction>,
    /// Kept SELECT plans (`plancache.rs`).
    plans: PlanCache,
    /// The settings nesting level of each open savepoint, outermost first.
    savepoint_levels: Vec<NestLevel>,
}

/// The deadlines the interrupt check enforces, as microseconds after `base`;
/// 0 means none. Atomics because the check runs wherever the statement is.
struct Deadlines {
    /// The clock's origin.
    base: Instant,
    /// `statement_timeout` of the running statement.
    statement: AtomicU64,
    /// `transaction_timeout` of the open transaction.
    transaction: AtomicU64,
}

impl Deadlines {
    /// arm -- sets `deadline` to `timeout` from now (none for `None`).
    fn arm(&self, deadline: &AtomicU64, timeout: Option<Duration>) {
        let at = timeout.map_or(0, |t| (self.base.elapsed() + t).as_micros().max(1) as u64);
        deadline.store(at, Ordering::Relaxed);
    }

    /// How long until `deadline` passes (zero once it has); `None` if unset.
    fn left(&self, deadline: &AtomicU64) -> Option<Duration> {
        match deadline.load(Ordering::Relaxed) {
            0 => None,
            at => Some(Duration::from_micros(
                at.saturating_sub(self.base.elapsed().as_micros() as u64),
            )),
        }
    }

    /// Whether `deadline` is set and has passed.
    fn passed(&self, deadline: &AtomicU64) -> bool {
        self.left(deadline).is_some_and(|d| d.is_zero())
    }
}

/// What statement execution borrows from the session: the transaction apart
/// from everything else, so scans and row changes can run side by side.
pub(crate) struct ExecParts<'a> {
    /// The storage engine.
    pub engine: &'a Arc<Engine>,
    /// The running transaction.
    pub txn: &'a mut Transaction,
    /// Everything expression evaluation may consult.
    pub env: SessionEnv<'a>,
    /// What planning this statement did that a kept plan must repeat.
    pub plan_log: PlanLog,
    /// The session's kept plans.
    pub plans: &'a mut PlanCache,
}

/// What planning did that matters to keeping its plan (`plancache.rs`).
#[derive(Debug, Default)]
pub(crate) struct PlanLog {
    /// Table locks taken, in order.
    pub locks: Vec<(Oid, LockMode)>,
    /// Rows of a live view (pg_stat_activity, ...) were computed into the
    /// plan, which therefore shows one moment and cannot be kept.
    pub reads_live_state: bool,
}

/// Session state visible to expressions (settings, identity, clocks).
pub(crate) struct SessionEnv<'a> {
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
    pub sequences: &'a mut commands::sequence::functions::SeqTable,
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

/// The session's interrupt check extended with the timeouts (see the module
/// documentation): past the transaction's deadline the session ends, past the
/// statement's the statement fails like a cancel.
fn with_timeouts(outer: InterruptCheck, deadlines: Arc<Deadlines>) -> InterruptCheck {
    Arc::new(move || {
        outer()?;
        if deadlines.passed(&deadlines.transaction) {
            return Err(transaction_timeout_error());
        }
        if deadlines.passed(&deadlines.statement) {
            return Err(SqlError::new("57014", "canceling statement due to statement timeout"));
        }
        Ok(())
    })
}

/// FATAL 25P04: the transaction outlived `transaction_timeout`.
fn transaction_timeout_error() -> SqlError {
    SqlError::new("25P04", "terminating connection due to transaction timeout")
}

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
const POSTGRES_EPOCH_OFFSET_MICROS: i64 = 946_684_800_000_000;

/// The current time as a timestamptz value.
pub(crate) fn now_timestamptz() -> i64 {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    micros - POSTGRES_EPOCH_OFFSET_MICROS
}

impl Session {
    /// connect -- a session for `user` on database `database`, for backend `pid`.
    pub fn connect(
        instance: Arc<Instance>,
        database: &str,
        user: &str,
        pid: u32,
        interrupts: InterruptCheck,
        signal: Arc<dyn BackendSignal>,
    ) -> Result<Session> {
        let deadlines = Arc::new(Deadlines {
            base: Instant::now(),
            statement: AtomicU64::new(0),
            transaction: AtomicU64::new(0),
        });
        let interrupts = with_timeouts(interrupts, deadlines.clone());
        let backend = instance.engine.txns().register_backend(pid)?;
        let settings = SessionSettings::new(instance.config.clone(), user, true);
        let mut session = Session {
            instance,
            backend,
            database: 0,
            database_name: database.to_string(),
            user: user.to_string(),
            settings,
            block: Block::Idle,
            interrupts,
            pending_deletes: Vec::new(),
            next_isolation: None,
            txn_start: now_timestamptz(),
            pid,
            deadlines,
            multi_statement: false,
            sequences: Default::default(),
            stats: PendingStats::default(),
            notices: Vec::new(),
            pending_actions: Vec::new(),
            plans: PlanCache::default(),
            savepoint_levels: Vec::new(),
        };
        session.database = session.find_database(database)?;
        let now = now_timestamptz();
        session.instance.activity.publish(
            Activity {
                pid,
                proc: session.backend.proc(),
                database: (session.database, database.to_string()),
                user: user.to_string(),
                application_name: String::new(),
                state: "idle",
                backend_start: now,
                xact_start: None,
                query_start: None,
                state_change: now,
                query: String::new(),
            },
            signal,
        );
        Ok(session)
    }

    fn find_database(&mut self, name: &str) -> Result<Oid> {
        let engine = self.instance.engine.clone();
        let mut txn = self.backend.begin(IsolationLevel::ReadCommitted);
        let rows = crate::catalog::scan(&engine, 0, &PG_DATABASE, &mut txn, |r| {
            r[1].as_str() == Some(name)
        })?;
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

    /// The session's settings.
    pub fn settings(&mut self) -> &mut SessionSettings {
        &mut self.settings
    }

    /// The context values are read and printed in now (`TimeZone`,
    /// `DateStyle`, `IntervalStyle`, the transaction start).
    pub fn output_context(&self) -> Context {
        session_context(&self.settings, self.txn_start)
    }

    /// The transaction state for ReadyForQuery.
    pub fn status(&self) -> TxnStatus {
        match self.block {
            Block::Idle | Block::Implicit(_) => TxnStatus::Idle,
            Block::Explicit(_) => TxnStatus::InBlock,
            Block::Failed(_) => TxnStatus::Failed,
        }
    }

    /// simple_query -- runs every statement of `sql` (the simple query
    /// protocol). Returns the number of statements; zero means an empty query.
    pub fn simple_query(&mut self, sql: &str, sink: &mut dyn QuerySink) -> Result<usize> {
        let result = self.run_query_string(sql, sink);
        self.report_idle();
        result
    }

    fn run_query_string(&mut self, sql: &str, sink: &mut dyn QuerySink) -> Result<usize> {
        self.report_active(sql);
        let statements = match parse(sql) {
            Ok(s) => s,
            Err(e) => return Err(self.fail(e)),
        };
        self.multi_statement = statements.len() > 1;
        let outcome = statements.iter().try_for_each(|statement| self.run(statement, &[], sink));
        self.multi_statement = false;
        if let Err(e) = outcome {
            return Err(self.fail(e));
        }
        self.end_implicit(true)?;
        Ok(statements.len())
    }

    /// Publishes that `query` is running.
    pub fn report_active(&mut self, query: &str) {
        let now = now_timestamptz();
        let application_name = self.settings.get_str("application_name").to_string();
        self.instance.activity.update(self.pid, |a| {
            a.state = "active";
            a.query = query.to_string();
            a.query_start = Some(now);
            a.state_change = now;
            a.application_name = application_name;
        });
    }

    /// A timeout setting's value; `None` when it is 0 (disabled).
    fn timeout_setting(&self, name: &str) -> Option<Duration> {
        self.settings.get_duration(name).filter(|d| !d.is_zero())
    }

    /// Starts the running statement's `statement_timeout` clock.
    fn arm_statement_timeout(&mut self) {
        let timeout = self.timeout_setting("statement_timeout");
        self.deadlines.arm(&self.deadlines.statement, timeout);
    }

    /// Notes the start of a transaction: `now()`, and the `transaction_timeout` clock.
    fn start_transaction_clock(&mut self) {
        self.txn_start = now_timestamptz();
        let timeout = self.timeout_setting("transaction_timeout");
        self.deadlines.arm(&self.deadlines.transaction, timeout);
    }

    /// Row waits of this statement follow the session's `lock_timeout` and
    /// `deadlock_timeout`, like its table lock waits.
    fn apply_wait_timeouts(&mut self) {
        let lock_timeout = self.timeout_setting("lock_timeout");
        let deadlock_timeout = self
            .timeout_setting("deadlock_timeout")
            .unwrap_or(sluice_txn::lmgr::DEFAULT_DEADLOCK_TIMEOUT);
        let interrupts = self.interrupts.clone();
        if let Some(txn) = self.current_txn() {
            txn.set_wait_timeouts(lock_timeout, deadlock_timeout);
            txn.set_interrupt_check(Arc::new(move || interrupts().is_err()));
        }
    }

    /// follow_transaction_timeout -- a `transaction_timeout` set inside a
    /// transaction starts its clock now, and setting it to 0 stops it (as
    /// PostgreSQL's assign hook does).
    fn follow_transaction_timeout(&mut self) {
        if matches!(self.block, Block::Idle) {
            return;
        }
        let armed = self.deadlines.left(&self.deadlines.transaction).is_some();
        match self.timeout_setting("transaction_timeout") {
            Some(t) if !armed => self.deadlines.arm(&self.deadlines.transaction, Some(t)),
            None if armed => self.deadlines.arm(&self.deadlines.transaction, None),
            _ => {}
        }
    }

    /// idle_timeout -- how long the session may now wait for the client's next
    /// command, and the FATAL error that ends it after that (see the module
    /// documentation); `None` to wait forever.
    pub fn idle_timeout(&mut self) -> Option<(Duration, SqlError)> {
        let mut limits = Vec::new();
        if let Block::Explicit(_) | Block::Failed(_) = self.block {
            if let Some(t) = self.timeout_setting("idle_in_transaction_session_timeout") {
                limits.push((
                    t,
                    SqlError::new(
                        "25P03",
                        "terminating connection due to idle-in-transaction timeout",
                    ),
                ));
            }
            if let Some(left) = self.deadlines.left(&self.deadlines.transaction) {
                limits.push((left, transaction_timeout_error()));
            }
        } else if let Some(t) = self.timeout_setting("idle_session_timeout") {
            limits.push((
                t,
                SqlError::new("57P05", "terminating connection due to idle-session timeout"),
            ));
        }
        limits.into_iter().min_by_key(|(t, _)| *t)
    }

    /// Publishes that the session waits for the client, in or out of a transaction.
    pub fn report_idle(&mut self) {
        self.deadlines.arm(&self.deadlines.statement, None);
        let (state, xact_start) = match self.block {
            Block::Idle | Block::Implicit(_) => ("idle", None),
            Block::Explicit(_) => ("idle in transaction", Some(self.txn_start)),
            Block::Failed(_) => ("idle in transaction (aborted)", Some(self.txn_start)),
        };
        let now = now_timestamptz();
        self.instance.activity.update(self.pid, |a| {
            a.state = state;
            a.xact_start = xact_start;
            a.state_change = now;
        });
    }

    /// run -- runs one parsed statement with bound parameter values. The caller
    /// handles errors with [`Session::fail`] and ends implicit transactions with
    /// [`Session::end_implicit`].
    pub fn run(
        &mut self,
        statement: &RawStatement,
        params: &[Datum],
        sink: &mut dyn QuerySink,
    ) -> Result<()> {
        // Settings reloaded server-wide (pg_reload_conf, SIGHUP) apply from the
        // next statement on, as PostgreSQL's backends apply them when idle.
        self.settings.sync();
        self.arm_statement_timeout();
        (self.interrupts)()?;
        if let NodeEnum::TransactionStmt(stmt) = &statement.node {
            return commands::transaction::run(self, stmt, sink);
        }
        if matches!(self.block, Block::Failed(_)) {
            return Err(aborted_block_error());
        }
        self.ensure_transaction();
        self.apply_wait_timeouts();
        // The settings as this statement sees them print its values, even
        // when an earlier statement of the same query string changed them.
        sink.output_context(&self.output_context());
        let txn_start = self.txn_start;
        self.instance.activity.update(self.pid, |a| a.xact_start = Some(txn_start));
        let mut result = self.dispatch(statement, params, sink);
        for notice in std::mem::take(&mut self.notices) {
            sink.notice(&notice)?;
        }
        if result.is_ok() {
            // A termination that arrived while the statement ran (even from the
            // statement itself: pg_terminate_backend(pg_backend_pid())) ends the
            // session now, as PostgreSQL's next interrupt check would.
            result =
                (self.interrupts)().or_else(|e| if e.ends_session() { Err(e) } else { Ok(()) });
        }
        self.follow_transaction_timeout();
        if let Some(txn) = self.current_txn() {
            txn.end_statement();
            txn.increment_command();
        }
        result
    }

    /// describe -- the columns `statement` would return and its parameter
    /// types, without running it (runs inside the implicit transaction, which
    /// Sync ends).
    pub fn describe(
        &mut self,
        statement: &RawStatement,
        param_types: &mut Vec<Option<sluice_types::SqlType>>,
    ) -> Result<Option<Vec<crate::sink::OutputColumn>>> {
        if matches!(self.block, Block::Failed(_)) {
            return Err(aborted_block_error());
        }
        if let NodeEnum::VariableShowStmt(stmt) = &statement.node {
            return commands::variable::describe_show(self, stmt).map(Some);
        }
        self.ensure_transaction();
        let result = executor::describe(self, statement, param_types);
        if let Some(txn) = self.current_txn() {
            txn.end_statement();
        }
        result
    }

    fn dispatch(
        &mut self,
        statement: &RawStatement,
        params: &[Datum],
        sink: &mut dyn QuerySink,
    ) -> Result<()> {
        self.prevent_if_read_only(&statement.node)?;
        match &statement.node {
            NodeEnum::VariableSetStmt(stmt) => commands::variable::set(self, stmt, sink),
            NodeEnum::VariableShowStmt(stmt) => commands::variable::show(self, stmt, sink),
            NodeEnum::AlterSystemStmt(stmt) => commands::variable::alter_system(self, stmt, sink),
            NodeEnum::CreateStmt(stmt) => commands::tablecmds::create_table(self, stmt, sink),
            NodeEnum::DropStmt(stmt) => commands::tablecmds::drop(self, stmt, sink),
            NodeEnum::LockStmt(stmt) => commands::tablecmds::lock_table(self, stmt, sink),
            NodeEnum::CopyStmt(stmt) => commands::copy::copy(self, stmt, sink),
            NodeEnum::IndexStmt(stmt) => commands::indexcmds::create_index(self, stmt, sink),
            NodeEnum::ExplainStmt(stmt) => executor::explain(self, stmt, sink),
            NodeEnum::AlterTableStmt(stmt) => commands::tablecmds::alter_table(self, stmt, sink),
            NodeEnum::VacuumStmt(stmt) if !stmt.is_vacuumcmd => {
                commands::analyze::analyze(self, stmt, sink)
            }
            NodeEnum::VacuumStmt(stmt) => commands::vacuum::vacuum(self, stmt, sink),
            NodeEnum::TruncateStmt(stmt) => commands::truncate::truncate(self, stmt, sink),
            NodeEnum::ReindexStmt(stmt) => commands::indexcmds::reindex::reindex(self, stmt, sink),
            NodeEnum::ClusterStmt(stmt) => commands::cluster::cluster(self, stmt, sink),
            NodeEnum::CreateSeqStmt(stmt) => commands::sequence::create_sequence(self, stmt, sink),
            NodeEnum::AlterSeqStmt(stmt) => commands::sequence::alter_sequence(self, stmt, sink),
            NodeEnum::CreatedbStmt(stmt) => commands::dbcommands::createdb(self, stmt, sink),
            NodeEnum::DropdbStmt(stmt) => commands::dbcommands::dropdb(self, stmt, sink),
            NodeEnum::CreateExtensionStmt(stmt) => {
                commands::extension::create_extension(self, stmt, sink)
            }
            NodeEnum::CheckPointStmt(_) => {
                self.instance.engine.checkpoint()?;
                sink.complete("CHECKPOINT")
            }
            NodeEnum::SelectStmt(_)
            | NodeEnum::InsertStmt(_)
            | NodeEnum::UpdateStmt(_)
            | NodeEnum::DeleteStmt(_) => executor::run(self, statement, params, sink),
            other => Err(SqlError::unsupported(format!(
                "{} is not supported yet",
                statement_name(other)
            ))),
        }
    }

    /// prevent_if_read_only -- 25006 for a statement that writes, in a
    /// read-only transaction (PostgreSQL's PreventCommandIfReadOnly and
    /// ExecCheckXactReadOnly). nextval and setval check for themselves.
    fn prevent_if_read_only(&mut self, node: &NodeEnum) -> Result<()> {
        let Some(what) = writing_command(node) else { return Ok(()) };
        if !self.settings.get_bool("transaction_read_only") {
            return Ok(());
        }
        Err(SqlError::new("25006", format!("cannot execute {what} in a read-only transaction")))
    }

    /// fail -- applies an error to the transaction state (an explicit block
    /// becomes failed, an implicit transaction rolls back) and returns it.
    pub fn fail(&mut self, error: SqlError) -> SqlError {
        let error = self.name_the_interrupt(error);
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Explicit(mut txn) if txn.savepoint_depth() > 0 => {
                self.stats.end_savepoints(txn.savepoint_depth(), false);
                txn.abort_current_level();
                self.block = Block::Failed(Some(txn));
            }
            Block::Explicit(txn) => {
                self.finish(txn, false);
                self.block = Block::Failed(None);
            }
            Block::Implicit(txn) => self.finish(txn, false),
            failed @ Block::Failed(_) => self.block = failed,
            Block::Idle => {}
        }
        error
    }

    /// name_the_interrupt -- a wait that an interrupt ended (a row or lock
    /// wait in the access layer) reports a cancel "due to user request":
    /// below the SQL layer a cancel and a timeout look alike. The statement
    /// deadline tells them apart, so the client reads what PostgreSQL says.
    fn name_the_interrupt(&self, error: SqlError) -> SqlError {
        if error.code == "57014" && self.deadlines.passed(&self.deadlines.statement) {
            return SqlError {
                message: "canceling statement due to statement timeout".into(),
                ..error
            };
        }
        error
    }

    /// end_implicit -- ends an implicit transaction (end of a simple query or
    /// Sync): commits if `commit`, else rolls back.
    pub fn end_implicit(&mut self, commit: bool) -> Result<()> {
        if let Block::Implicit(_) = self.block {
            let Block::Implicit(txn) = std::mem::replace(&mut self.block, Block::Idle) else {
                unreachable!()
            };
            if commit {
                return self.commit(txn);
            }
            self.finish(txn, false);
        }
        Ok(())
    }

    /// restart_transaction -- commits the implicit transaction of a statement
    /// that runs as several transactions (CREATE INDEX CONCURRENTLY) and
    /// starts the next one.
    pub(crate) fn restart_transaction(&mut self) -> Result<()> {
        self.end_implicit(true)?;
        self.ensure_transaction();
        Ok(())
    }

    fn default_isolation(&self) -> IsolationLevel {
        match self.settings.get_enum("default_transaction_isolation") {
            "repeatable read" | "serializable" => IsolationLevel::RepeatableRead,
            _ => IsolationLevel::ReadCommitted,
        }
    }

    fn ensure_transaction(&mut self) {
        if matches!(self.block, Block::Idle) {
            let isolation = self.next_isolation.take().unwrap_or_else(|| self.default_isolation());
            self.settings.start_transaction();
            self.start_transaction_clock();
            self.block = Block::Implicit(self.backend.begin(isolation));
        }
    }

    /// prevent_transaction_block -- PostgreSQL's PreventInTransactionBlock:
    /// `what` (e.g. "ALTER SYSTEM") must run as its own transaction, neither
    /// inside BEGIN ... COMMIT nor beside other statements of one query string.
    pub(crate) fn prevent_transaction_block(&self, what: &str) -> Result<()> {
        if self.in_transaction_block() || self.multi_statement {
            return Err(SqlError::new(
                "25001",
                format!("{what} cannot run inside a transaction block"),
            ));
        }
        Ok(())
    }

    /// Server-wide settings.
    pub(crate) fn instance(&self) -> Arc<Instance> {
        self.instance.clone()
    }

    /// The backend process id clients see.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Server-wide settings.
    pub(crate) fn instance_config(&self) -> Arc<GlobalConfig> {
        self.instance.config.clone()
    }

    /// Whether an explicit transaction block (BEGIN) is open.
    pub fn in_transaction_block(&self) -> bool {
        matches!(self.block, Block::Explicit(_))
    }

    /// The running transaction, if any (not a failed one).
    pub fn current_txn(&mut self) -> Option<&mut Transaction> {
        match &mut self.block {
            Block::Implicit(t) | Block::Explicit(t) => Some(t),
            _ => None,
        }
    }

    /// The running transaction; statements run only inside one.
    pub fn txn(&mut self) -> Result<&mut Transaction> {
        self.current_txn().ok_or_else(|| SqlError::internal("no transaction is running"))
    }

    /// begin_block -- BEGIN: the implicit transaction becomes an explicit block.
    pub(crate) fn begin_block(
        &mut self,
        isolation: Option<IsolationLevel>,
        tag: &str,
        sink: &mut dyn QuerySink,
    ) -> Result<()> {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Idle => {
                self.settings.start_transaction();
                self.start_transaction_clock();
                let isolation = isolation.unwrap_or_else(|| self.default_isolation());
                self.block = Block::Explicit(self.backend.begin(isolation));
            }
            Block::Implicit(txn) => self.block = Block::Explicit(txn),
            other => {
                self.block = other;
                sink.notice(&SqlError::new("25001", "there is already a transaction in progress"))?;
            }
        }
        sink.complete(tag)
    }

    /// end_block -- COMMIT (or ROLLBACK when `commit` is false, or when the
    /// block failed). Returns the tag to report.
    pub(crate) fn end_block(
        &mut self,
        commit: bool,
        sink: &mut dyn QuerySink,
    ) -> Result<&'static str> {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Explicit(txn) | Block::Implicit(txn) if commit => {
                self.commit(txn)?;
                Ok("COMMIT")
            }
            Block::Explicit(txn) | Block::Implicit(txn) | Block::Failed(Some(txn)) => {
                self.finish(txn, false);
                Ok("ROLLBACK")
            }
            Block::Failed(None) => Ok("ROLLBACK"),
            Block::Idle => {
                sink.notice(&SqlError::new("25P01", "there is no transaction in progress"))?;
                Ok(if commit { "COMMIT" } else { "ROLLBACK" })
            }
        }
    }

    /// Whether the block failed (only ROLLBACK, COMMIT, ROLLBACK TO and
    /// PREPARE TRANSACTION are accepted).
    pub(crate) fn in_failed_block(&self) -> bool {
        matches!(self.block, Block::Failed(_))
    }

    /// define_savepoint -- SAVEPOINT `name` (DefineSavepoint): a new level,
    /// also for settings.
    pub(crate) fn define_savepoint(&mut self, name: &str) -> Result<()> {
        let Block::Explicit(txn) = &mut self.block else {
            return Err(block_required("SAVEPOINT"));
        };
        txn.savepoint(name);
        self.savepoint_levels.push(self.settings.push_nest_level());
        Ok(())
    }

    /// release_savepoint -- RELEASE [SAVEPOINT] `name` (ReleaseSavepoint): the
    /// savepoint's level and those above merge into the enclosing one.
    pub(crate) fn release_savepoint(&mut self, name: &str) -> Result<()> {
        let Block::Explicit(txn) = &mut self.block else {
            return Err(block_required("RELEASE SAVEPOINT"));
        };
        let depth = txn.release(name).map_err(|_| no_savepoint(name))?;
        let level = self.savepoint_levels[depth - 1];
        self.savepoint_levels.truncate(depth - 1);
        self.settings.pop_nest_level(level, true);
        self.stats.end_savepoints(depth, true);
        self.pending_deletes.iter_mut().filter(|p| p.depth >= depth).for_each(|p| {
            p.depth = depth - 1;
        });
        self.pending_actions.iter_mut().filter(|a| a.1 >= depth).for_each(|a| a.1 = depth - 1);
        Ok(())
    }

    /// rollback_to_savepoint -- ROLLBACK TO [SAVEPOINT] `name`
    /// (RollbackToSavepoint): undoes what was done since the savepoint (also
    /// after an error there, which it recovers from) and reopens it.
    pub(crate) fn rollback_to_savepoint(&mut self, name: &str) -> Result<()> {
        let txn = match &mut self.block {
            Block::Explicit(txn) | Block::Failed(Some(txn)) => txn,
            Block::Failed(None) => return Err(no_savepoint(name)),
            _ => return Err(block_required("ROLLBACK TO SAVEPOINT")),
        };
        let depth = txn.rollback_to(name).map_err(|_| no_savepoint(name))?;
        // A failed block recovers: the transaction goes on.
        self.block = match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Failed(Some(txn)) => Block::Explicit(txn),
            other => other,
        };
        let level = self.savepoint_levels[depth - 1];
        self.savepoint_levels.truncate(depth - 1);
        self.settings.pop_nest_level(level, false);
        self.savepoint_levels.push(self.settings.push_nest_level());
        self.undo_pending_from(depth);
        self.stats.end_savepoints(depth, false);
        Ok(())
    }

    /// undo_pending_from -- savepoint levels `depth..` rolled back: files they
    /// created go now, and their work for commit time is forgotten.
    fn undo_pending_from(&mut self, depth: usize) {
        let engine = self.instance.engine.clone();
        let (ended, kept) = std::mem::take(&mut self.pending_deletes)
            .into_iter()
            .partition::<Vec<_>, _>(|p| p.depth >= depth);
        self.pending_deletes = kept;
        for pending in ended.into_iter().filter(|p| !p.at_commit) {
            for fork in ForkNumber::ALL {
                engine.pool().drop_relation_buffers(pending.locator, fork, 0);
            }
            // As at transaction end: a file left behind only wastes space.
            let _ = engine.pool().smgr().unlink(pending.locator);
        }
        let (ended, kept) = std::mem::take(&mut self.pending_actions)
            .into_iter()
            .partition::<Vec<_>, _>(|a| a.1 >= depth);
        self.pending_actions = kept;
        for (_, _, action) in ended.into_iter().filter(|a| !a.0) {
            action(&engine);
        }
    }

    /// prepare_block -- PREPARE TRANSACTION `gid`: the block's transaction
    /// leaves the session prepared. A failed block is rolled back instead, and
    /// without a block there is nothing to prepare (both report ROLLBACK).
    /// Files the transaction would remove at its end are left in place (a
    /// leak, never a loss: sluice does not yet hand pending deletions to the
    /// prepared transaction).
    pub(crate) fn prepare_block(
        &mut self,
        gid: &str,
        sink: &mut dyn QuerySink,
    ) -> Result<&'static str> {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Explicit(txn) => {
                let cx = PrepareContext { gid, owner: &self.user, database: self.database };
                match txn.prepare(&cx) {
                    Ok(Ok(())) => {
                        self.pending_deletes.clear();
                        self.pending_actions.clear();
                        self.after_transaction(true);
                        Ok("PREPARE TRANSACTION")
                    }
                    Ok(Err(e)) => {
                        self.after_transaction(false);
                        Err(e.into())
                    }
                    Err(refused) => {
                        let (txn, refusal) = *refused;
                        self.finish(txn, false);
                        Err(two_phase_error(refusal))
                    }
                }
            }
            Block::Failed(txn) => {
                if let Some(txn) = txn {
                    self.finish(txn, false);
                }
                Ok("ROLLBACK")
            }
            Block::Implicit(txn) => {
                self.finish(txn, false);
                sink.notice(&SqlError::new("25P01", "there is no transaction in progress"))?;
                Ok("ROLLBACK")
            }
            Block::Idle => {
                sink.notice(&SqlError::new("25P01", "there is no transaction in progress"))?;
                Ok("ROLLBACK")
            }
        }
    }

    /// finish_prepared -- COMMIT PREPARED (`commit`) or ROLLBACK PREPARED
    /// `gid`: its own transaction, outside any block.
    pub(crate) fn finish_prepared(&mut self, gid: &str, commit: bool) -> Result<()> {
        let what = if commit { "COMMIT PREPARED" } else { "ROLLBACK PREPARED" };
        self.prevent_transaction_block(what)?;
        let engine = self.instance.engine.clone();
        match engine.txns().finish_prepared(gid, commit, self.database) {
            Err(refusal) => Err(two_phase_error(refusal)),
            Ok(result) => result.map_err(SqlError::from),
        }
    }

    fn commit(&mut self, txn: Transaction) -> Result<()> {
        let result = txn.commit();
        self.after_transaction(result.is_ok());
        result.map_err(SqlError::from)
    }

    fn finish(&mut self, txn: Transaction, commit: bool) {
        if commit {
            let _ = self.commit(txn);
        } else {
            txn.rollback();
            self.after_transaction(false);
        }
    }

    /// Settings and files once a transaction has ended.
    fn after_transaction(&mut self, committed: bool) {
        self.deadlines.arm(&self.deadlines.transaction, None);
        self.savepoint_levels.clear();
        self.settings.end_transaction(committed);
        let engine = &self.instance.engine;
        self.stats.end_transaction(committed);
        engine.stats().flush(self.database, &mut self.stats);
        for pending in std::mem::take(&mut self.pending_deletes) {
            if let (true, Some(xid)) = (committed && pending.at_commit, pending.unseen_after) {
                engine.unlink_when_unseen(pending.locator, xid);
                continue;
            }
            if pending.at_commit == committed {
                for fork in ForkNumber::ALL {
                    engine.pool().drop_relation_buffers(pending.locator, fork, 0);
                }
                // A file that cannot be removed only wastes space; the
                // transaction's outcome stands.
                let _ = engine.pool().smgr().unlink(pending.locator);
            }
        }
        for (at_commit, _, action) in std::mem::take(&mut self.pending_actions) {
            if at_commit == committed {
                action(engine);
            }
        }
        // This transaction's snapshot may have been the last one that could
        // read a swapped-out file.
        engine.sweep_unseen();
    }

    /// The open savepoint depth (0 outside savepoints).
    fn savepoint_depth(&self) -> usize {
        self.savepoint_levels.len()
    }

    /// Removes `locator`'s files when the transaction aborts.
    pub(crate) fn delete_on_abort(&mut self, locator: RelFileLocator) {
        let depth = self.savepoint_depth();
        self.pending_deletes.push(PendingDelete {
            locator,
            at_commit: false,
            depth,
            unseen_after: None,
        });
    }

    /// Removes `locator`'s files once the transaction commits.
    pub(crate) fn delete_on_commit(&mut self, locator: RelFileLocator) {
        let depth = self.savepoint_depth();
        self.pending_deletes.push(PendingDelete {
            locator,
            at_commit: true,
            depth,
            unseen_after: None,
        });
    }

    /// keep_until_unseen -- `locator`, registered with
    /// [`Session::delete_on_commit`], was swapped for a copy with the same
    /// rows (VACUUM FULL, CLUSTER, REINDEX): after commit it stays until no
    /// snapshot older than this transaction remains, since such a snapshot
    /// still reads the old `pg_class` row and so this file
    /// (`Engine::unlink_when_unseen`).
    pub(crate) fn keep_until_unseen(&mut self, locator: RelFileLocator) -> Result<()> {
        let xid = self.txn()?.xid();
        for pending in self.pending_deletes.iter_mut().filter(|p| p.at_commit) {
            if pending.locator == locator {
                pending.unseen_after = xid;
            }
        }
        Ok(())
    }

    /// at_transaction_end -- runs `action` once the transaction commits
    /// (`at_commit`) or aborts (DROP/CREATE DATABASE's directory work).
    pub(crate) fn at_transaction_end(
        &mut self,
        at_commit: bool,
        action: impl FnOnce(&Engine) + Send + 'static,
    ) {
        let depth = self.savepoint_depth();
        self.pending_actions.push((at_commit, depth, Box::new(action)));
    }

    /// count_truncate -- TRUNCATE of table `oid` for the statistics: its
    /// counts so far are void if the transaction commits.
    pub(crate) fn count_truncate(&mut self, oid: Oid) {
        let depth = self.savepoint_depth();
        self.stats.count_truncate(oid, depth);
    }

    /// Sets the isolation level of the transaction about to start.
    pub(crate) fn set_next_isolation(&mut self, level: IsolationLevel) {
        self.next_isolation = Some(level);
    }

    /// parts -- the transaction and the rest of the session, borrowed apart.
    pub(crate) fn parts(&mut self) -> Result<ExecParts<'_>> {
        let txn = match &mut self.block {
            Block::Implicit(t) | Block::Explicit(t) => t,
            _ => return Err(SqlError::internal("no transaction is running")),
        };
        let xact_locks = txn.level_locks();
        Ok(ExecParts {
            engine: &self.instance.engine,
            txn,
            env: SessionEnv {
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
        })
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.instance.engine
    }

    /// The database's OID.
    pub fn database(&self) -> Oid {
        self.database
    }

    /// The database's name.
    pub fn database_name(&self) -> &str {
        &self.database_name
    }

    /// The session user's name.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The backend (proc array slot) of the session.
    pub fn backend(&self) -> &Arc<Backend> {
        &self.backend
    }

    /// Namespaces searched for unqualified names (pg_catalog first, then public).
    pub fn search_path(&self) -> [Oid; 2] {
        [PG_CATALOG_NAMESPACE, PUBLIC_NAMESPACE]
    }

    /// The interrupt check.
    pub fn interrupts(&self) -> &InterruptCheck {
        &self.interrupts
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.instance.activity.remove(self.pid);
        if let Block::Implicit(txn) | Block::Explicit(txn) | Block::Failed(Some(txn)) =
            std::mem::replace(&mut self.block, Block::Idle)
        {
            self.finish(txn, false);
        }
    }
}

/// A refused two-phase command, with PostgreSQL's hint.
fn two_phase_error(refusal: TwoPhaseError) -> SqlError {
    let error = SqlError::new(refusal.code, refusal.message);
    match refusal.hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}

/// 25P01: `what` outside a transaction block (RequireTransactionBlock).
fn block_required(what: &str) -> SqlError {
    SqlError::new("25P01", format!("{what} can only be used in transaction blocks"))
}

/// 3B001: no open savepoint is called `name`.
fn no_savepoint(name: &str) -> SqlError {
    SqlError::new("3B001", format!("savepoint \"{name}\" does not exist"))
}

/// 25P02: a statement other than ROLLBACK [TO] or COMMIT in a failed block.
pub(crate) fn aborted_block_error() -> SqlError {
    SqlError::new(
        "25P02",
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

/// The name PostgreSQL's error messages and command tags use for a statement kind.
/// writing_command -- the command name PostgreSQL's read-only check reports
/// for `node` if it writes, `None` for a statement a read-only transaction
/// may run (queries, LOCK, VACUUM and ANALYZE, settings, transaction
/// control). A SELECT counts as writing when its top level locks rows.
fn writing_command(node: &NodeEnum) -> Option<String> {
    use pg_query::protobuf::ObjectType;
    let name = match node {
        NodeEnum::InsertStmt(_) => "INSERT",
        NodeEnum::UpdateStmt(_) => "UPDATE",
        NodeEnum::DeleteStmt(_) => "DELETE",
        NodeEnum::SelectStmt(s) => return select_lock_command(s),
        NodeEnum::CreateStmt(_) => "CREATE TABLE",
        NodeEnum::IndexStmt(_) => "CREATE INDEX",
        NodeEnum::AlterTableStmt(_) => "ALTER TABLE",
        NodeEnum::TruncateStmt(_) => "TRUNCATE TABLE",
        NodeEnum::CreateSeqStmt(_) => "CREATE SEQUENCE",
        NodeEnum::AlterSeqStmt(_) => "ALTER SEQUENCE",
        NodeEnum::ClusterStmt(_) => "CLUSTER",
        NodeEnum::ReindexStmt(_) => "REINDEX",
        NodeEnum::CreateExtensionStmt(_) => "CREATE EXTENSION",
        NodeEnum::CopyStmt(c) if c.is_from => "COPY FROM",
        NodeEnum::DropStmt(d) => match ObjectType::try_from(d.remove_type) {
            Ok(ObjectType::ObjectTable) => "DROP TABLE",
            Ok(ObjectType::ObjectIndex) => "DROP INDEX",
            Ok(ObjectType::ObjectSequence) => "DROP SEQUENCE",
            Ok(ObjectType::ObjectView) => "DROP VIEW",
            _ => "DROP",
        },
        _ => return None,
    };
    Some(name.to_string())
}

/// The read-only check's name for a SELECT that locks rows at its top
/// level (`SELECT FOR UPDATE`, ... by the first locking clause).
fn select_lock_command(select: &pg_query::protobuf::SelectStmt) -> Option<String> {
    use pg_query::protobuf::LockClauseStrength;
    let clause = select.locking_clause.first()?;
    let Some(NodeEnum::LockingClause(lock)) = clause.node.as_ref() else { return None };
    let strength = match LockClauseStrength::try_from(lock.strength) {
        Ok(LockClauseStrength::LcsForkeyshare) => "FOR KEY SHARE",
        Ok(LockClauseStrength::LcsForshare) => "FOR SHARE",
        Ok(LockClauseStrength::LcsFornokeyupdate) => "FOR NO KEY UPDATE",
        _ => "FOR UPDATE",
    };
    Some(format!("SELECT {strength}"))
}

fn statement_name(node: &NodeEnum) -> String {
    let debug = format!("{node:?}");
    let name = debug.split('(').next().unwrap_or("statement");
    name.trim_end_matches("Stmt").to_string()
}

/// session_context -- the [`Context`] of `settings` at transaction time
/// `now`: the time zone and the date and interval styles that values are
/// read and printed in (an unknown zone, which SET refuses, reads as UTC).
pub fn session_context<S: Settings + ?Sized>(settings: &S, now: i64) -> Context {
    let zone = TimeZone::named(&settings.get_str("TimeZone")).unwrap_or_default();
    let date_style = DateStyle::from_setting(&settings.get_str("DateStyle"));
    let interval_style = IntervalStyle::from_setting(settings.get_enum("IntervalStyle"));
    Context::new(zone, now).with_styles(date_style, interval_style)
}
