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
//! explicit block. In a failed block every statement but COMMIT/ROLLBACK gets
//! 25P02. Under READ COMMITTED every statement takes a new snapshot; every
//! statement ends with a command-counter increment so the next one sees its
//! changes.
//!
//! Files created by a transaction are removed if it aborts, files of dropped
//! relations only once it commits (PostgreSQL's pending deletes).

use crate::activity::{Activity, ActivityTable};
use crate::catalog::schema::{PG_CATALOG_NAMESPACE, PG_DATABASE, PUBLIC_NAMESPACE};
use crate::error::{Result, SqlError};
use crate::parser::{parse, RawStatement};
use crate::sink::QuerySink;
use crate::{commands, executor};
use pg_query::NodeEnum;
use sluice_access::Engine;
use sluice_common::{ForkNumber, Oid, RelFileLocator};
use sluice_guc::{GlobalConfig, SessionSettings, Settings};
use sluice_txn::{Backend, IsolationLevel, Transaction};
use sluice_types::Datum;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

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
    /// Inside a block that had an error: only ROLLBACK/COMMIT are accepted.
    Failed(Transaction),
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
}

/// Work for the end of the transaction beyond removing relation files
/// (a database directory): whether it runs at commit or at abort, and what.
type PendingAction = (bool, Box<dyn FnOnce(&Engine) + Send>);

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
    /// When the running statement times out (`statement_timeout`), as
    /// microseconds after `clock_base`; 0 for never.
    statement_deadline: Arc<AtomicU64>,
    /// The origin of `statement_deadline`.
    clock_base: Instant,
    /// What nextval/currval/lastval remember (not transactional).
    sequences: commands::sequence::functions::SeqTable,
    /// Work registered with [`Session::at_transaction_end`].
    pending_actions: Vec<PendingAction>,
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
    /// The session's sequence state (nextval, currval, lastval).
    pub sequences: &'a mut commands::sequence::functions::SeqTable,
}

/// The session's interrupt check extended with `statement_timeout`: once the
/// deadline set at statement start passes, every interrupt check (scans, lock
/// and row waits, pg_sleep) fails with 57014 like a cancel.
fn with_statement_timeout(
    outer: InterruptCheck,
    deadline: Arc<AtomicU64>,
    base: Instant,
) -> InterruptCheck {
    Arc::new(move || {
        outer()?;
        let at = deadline.load(Ordering::Relaxed);
        if at != 0 && base.elapsed().as_micros() as u64 >= at {
            return Err(SqlError::new("57014", "canceling statement due to statement timeout"));
        }
        Ok(())
    })
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
    ) -> Result<Session> {
        let statement_deadline = Arc::new(AtomicU64::new(0));
        let clock_base = Instant::now();
        let interrupts = with_statement_timeout(interrupts, statement_deadline.clone(), clock_base);
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
            statement_deadline,
            clock_base,
            sequences: Default::default(),
            pending_actions: Vec::new(),
        };
        session.database = session.find_database(database)?;
        let now = now_timestamptz();
        session.instance.activity.publish(Activity {
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
        });
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
        for statement in &statements {
            if let Err(e) = self.run(statement, &[], sink) {
                return Err(self.fail(e));
            }
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

    /// Starts the running statement's `statement_timeout` clock (0: none).
    fn arm_statement_timeout(&mut self) {
        let timeout = self.settings.get_duration("statement_timeout").filter(|d| !d.is_zero());
        let deadline =
            timeout.map_or(0, |t| (self.clock_base.elapsed() + t).as_micros().max(1) as u64);
        self.statement_deadline.store(deadline, Ordering::Relaxed);
    }

    /// Publishes that the session waits for the client, in or out of a transaction.
    pub fn report_idle(&mut self) {
        self.statement_deadline.store(0, Ordering::Relaxed);
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
        self.arm_statement_timeout();
        (self.interrupts)()?;
        if let NodeEnum::TransactionStmt(stmt) = &statement.node {
            return commands::transaction::run(self, stmt, sink);
        }
        if matches!(self.block, Block::Failed(_)) {
            return Err(SqlError::new(
                "25P02",
                "current transaction is aborted, commands ignored until end of transaction block",
            ));
        }
        self.ensure_transaction();
        let txn_start = self.txn_start;
        self.instance.activity.update(self.pid, |a| a.xact_start = Some(txn_start));
        let result = self.dispatch(statement, params, sink);
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
            return Err(SqlError::new(
                "25P02",
                "current transaction is aborted, commands ignored until end of transaction block",
            ));
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
        match &statement.node {
            NodeEnum::VariableSetStmt(stmt) => commands::variable::set(self, stmt, sink),
            NodeEnum::VariableShowStmt(stmt) => commands::variable::show(self, stmt, sink),
            NodeEnum::CreateStmt(stmt) => commands::tablecmds::create_table(self, stmt, sink),
            NodeEnum::DropStmt(stmt) => commands::tablecmds::drop(self, stmt, sink),
            NodeEnum::LockStmt(stmt) => commands::tablecmds::lock_table(self, stmt, sink),
            NodeEnum::CopyStmt(stmt) => commands::copy::copy(self, stmt, sink),
            NodeEnum::CreateSeqStmt(stmt) => commands::sequence::create_sequence(self, stmt, sink),
            NodeEnum::AlterSeqStmt(stmt) => commands::sequence::alter_sequence(self, stmt, sink),
            NodeEnum::CreatedbStmt(stmt) => commands::dbcommands::createdb(self, stmt, sink),
            NodeEnum::DropdbStmt(stmt) => commands::dbcommands::dropdb(self, stmt, sink),
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

    /// fail -- applies an error to the transaction state (an explicit block
    /// becomes failed, an implicit transaction rolls back) and returns it.
    pub fn fail(&mut self, error: SqlError) -> SqlError {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Explicit(txn) | Block::Failed(txn) => self.block = Block::Failed(txn),
            Block::Implicit(txn) => self.finish(txn, false),
            Block::Idle => {}
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
            self.txn_start = now_timestamptz();
            self.block = Block::Implicit(self.backend.begin(isolation));
        }
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
                self.txn_start = now_timestamptz();
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
            Block::Explicit(txn) | Block::Implicit(txn) | Block::Failed(txn) => {
                self.finish(txn, false);
                Ok("ROLLBACK")
            }
            Block::Idle => {
                sink.notice(&SqlError::new("25P01", "there is no transaction in progress"))?;
                Ok(if commit { "COMMIT" } else { "ROLLBACK" })
            }
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
        self.settings.end_transaction(committed);
        let engine = &self.instance.engine;
        for pending in std::mem::take(&mut self.pending_deletes) {
            if pending.at_commit == committed {
                for fork in ForkNumber::ALL {
                    engine.pool().drop_relation_buffers(pending.locator, fork, 0);
                }
                // A file that cannot be removed only wastes space; the
                // transaction's outcome stands.
                let _ = engine.pool().smgr().unlink(pending.locator);
            }
        }
        for (at_commit, action) in std::mem::take(&mut self.pending_actions) {
            if at_commit == committed {
                action(engine);
            }
        }
    }

    /// Removes `locator`'s files when the transaction aborts.
    pub(crate) fn delete_on_abort(&mut self, locator: RelFileLocator) {
        self.pending_deletes.push(PendingDelete { locator, at_commit: false });
    }

    /// Removes `locator`'s files once the transaction commits.
    pub(crate) fn delete_on_commit(&mut self, locator: RelFileLocator) {
        self.pending_deletes.push(PendingDelete { locator, at_commit: true });
    }

    /// at_transaction_end -- runs `action` once the transaction commits
    /// (`at_commit`) or aborts (DROP/CREATE DATABASE's directory work).
    pub(crate) fn at_transaction_end(
        &mut self,
        at_commit: bool,
        action: impl FnOnce(&Engine) + Send + 'static,
    ) {
        self.pending_actions.push((at_commit, Box::new(action)));
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
                sequences: &mut self.sequences,
            },
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
        if let Block::Implicit(txn) | Block::Explicit(txn) | Block::Failed(txn) =
            std::mem::replace(&mut self.block, Block::Idle)
        {
            self.finish(txn, false);
        }
    }
}

/// The name PostgreSQL's error messages and command tags use for a statement kind.
fn statement_name(node: &NodeEnum) -> String {
    let debug = format!("{node:?}");
    let name = debug.split('(').next().unwrap_or("statement");
    name.trim_end_matches("Stmt").to_string()
}
