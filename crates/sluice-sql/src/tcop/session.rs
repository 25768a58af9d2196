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
//! relations only once it commits (PostgreSQL's pending deletes): the
//! transaction's resource owners keep them (`xact`). The session's own state
//! apart from the transaction is a `BackendState` (`executor/context.rs`),
//! and what runs below the session sees it only as a `BackendContext`.

mod readonly;
mod timeouts;

use crate::activity::{Activity, BackendSignal, InterruptCheck};
use crate::error::{Result, SqlError};
use crate::executor::context::{BackendContext, BackendState, ExecParts, Instance};
use crate::executor::prepared::PreparedStatement;
use crate::expr::{now_timestamptz, session_context};
use crate::parser::{parse, RawStatement};
use crate::sink::QuerySink;
use crate::xact::{two_phase_error, TransactionState};
use crate::{commands, executor};
use pg_query::NodeEnum;
use readonly::{statement_name, writing_command};
use sluice_guc::{SessionSettings, Settings};
use sluice_txn::{IsolationLevel, PrepareContext, Transaction};
use sluice_types::{Context, Datum};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;
use timeouts::{with_timeouts, Deadlines};

/// Where the session is in PostgreSQL's transaction block state machine.
enum Block {
    /// No transaction.
    Idle,
    /// A transaction without BEGIN, ended by the end of the query string/Sync.
    Implicit(TransactionState),
    /// Inside BEGIN ... COMMIT.
    Explicit(TransactionState),
    /// Inside a block that had an error: only ROLLBACK/COMMIT (and ROLLBACK
    /// TO) are accepted. Without savepoints the transaction itself was rolled
    /// back when the error happened (`None`), so its locks are gone and its
    /// changes dead at once (PostgreSQL's AbortTransaction runs before the
    /// block reaches TBLOCK_ABORT); with savepoints only the innermost level
    /// was (TBLOCK_SUBABORT), and the transaction waits for ROLLBACK TO.
    Failed(Option<TransactionState>),
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

/// One client session.
pub struct Session {
    /// The backend's state apart from its transaction.
    core: BackendState,
    block: Block,
    /// Isolation level requested by BEGIN or SET TRANSACTION for the next/current transaction.
    next_isolation: Option<IsolationLevel>,
    /// When the running statement and transaction time out.
    deadlines: Arc<Deadlines>,
    /// The running query string has several statements, which share one
    /// implicit transaction block.
    multi_statement: bool,
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
        let core = BackendState::new(instance, database, user, pid, interrupts)?;
        let session = Session {
            core,
            block: Block::Idle,
            next_isolation: None,
            deadlines,
            multi_statement: false,
        };
        let now = now_timestamptz();
        session.core.instance.activity.publish(
            Activity {
                pid,
                proc: session.core.backend.proc(),
                database: (session.core.database, database.to_string()),
                user: user.to_string(),
                application_name: String::new(),
                state: "idle",
                backend_start: now,
                xact_start: None,
                query_start: None,
                state_change: now,
                query: String::new(),
                backend_type: "client backend",
            },
            signal,
        );
        Ok(session)
    }

    /// The session's settings.
    pub fn settings(&mut self) -> &mut SessionSettings {
        &mut self.core.settings
    }

    /// The context values are read and printed in now (`TimeZone`,
    /// `DateStyle`, `IntervalStyle`, the transaction start).
    pub fn output_context(&self) -> Context {
        session_context(&self.core.settings, self.core.txn_start)
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
        let application_name = self.core.settings.get_str("application_name").to_string();
        self.core.instance.activity.update(self.core.pid, |a| {
            a.state = "active";
            a.query = query.to_string();
            a.query_start = Some(now);
            a.state_change = now;
            a.application_name = application_name;
        });
    }

    /// Publishes that the session waits for the client, in or out of a transaction.
    pub fn report_idle(&mut self) {
        self.deadlines.arm(&self.deadlines.statement, None);
        let (state, xact_start) = match self.block {
            Block::Idle | Block::Implicit(_) => ("idle", None),
            Block::Explicit(_) => ("idle in transaction", Some(self.core.txn_start)),
            Block::Failed(_) => ("idle in transaction (aborted)", Some(self.core.txn_start)),
        };
        let now = now_timestamptz();
        self.core.instance.activity.update(self.core.pid, |a| {
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
        self.core.settings.sync();
        self.arm_statement_timeout();
        (self.core.interrupts)()?;
        if let NodeEnum::TransactionStmt(stmt) = &statement.node {
            return super::transaction::run(self, stmt, sink);
        }
        if matches!(self.block, Block::Failed(_)) {
            return Err(aborted_block_error());
        }
        self.ensure_transaction();
        self.apply_wait_timeouts();
        // The settings as this statement sees them print its values, even
        // when an earlier statement of the same query string changed them.
        sink.output_context(&self.output_context());
        let txn_start = self.core.txn_start;
        self.core.instance.activity.update(self.core.pid, |a| a.xact_start = Some(txn_start));
        let mut result = self.dispatch(statement, params, sink);
        for notice in std::mem::take(&mut self.core.notices) {
            sink.notice(&notice)?;
        }
        if result.is_ok() {
            // A termination that arrived while the statement ran (even from the
            // statement itself: pg_terminate_backend(pg_backend_pid())) ends the
            // session now, as PostgreSQL's next interrupt check would.
            result =
                (self.core.interrupts)()
                    .or_else(|e| if e.ends_session() { Err(e) } else { Ok(()) });
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
    fn describe(
        &mut self,
        statement: &RawStatement,
        param_types: &mut Vec<Option<sluice_types::SqlType>>,
    ) -> Result<Option<Vec<crate::sink::OutputColumn>>> {
        if matches!(self.block, Block::Failed(_)) {
            return Err(aborted_block_error());
        }
        match &statement.node {
            NodeEnum::VariableShowStmt(stmt) => {
                return commands::variable::describe_show(self, stmt).map(Some)
            }
            NodeEnum::ExplainStmt(_) => return Ok(Some(vec![commands::explain::plan_column()])),
            _ => {}
        }
        self.ensure_transaction();
        let result = executor::describe(self, statement, param_types);
        if let Some(txn) = self.current_txn() {
            txn.end_statement();
        }
        result
    }

    /// prepare -- the protocol's Parse: plans `statement` (`None` for an
    /// empty query string) for its columns and parameter types and keeps
    /// it as `name` (runs inside the implicit transaction, which Sync ends).
    pub fn prepare(
        &mut self,
        name: &str,
        statement: Option<RawStatement>,
        mut param_types: Vec<Option<sluice_types::SqlType>>,
    ) -> Result<()> {
        let columns = match &statement {
            Some(stmt) => self.describe(stmt, &mut param_types)?,
            None => None,
        };
        let prepared = PreparedStatement { statement, param_types, columns };
        self.core.prepared.insert(name, prepared)
    }

    /// The prepared statement called `name` (26000 if there is none).
    pub fn prepared(&self, name: &str) -> Result<Arc<PreparedStatement>> {
        self.core.prepared.get(name)
    }

    /// The protocol's Close of a statement (no error if there is none).
    pub fn close_prepared(&mut self, name: &str) {
        self.core.prepared.remove(name);
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
            NodeEnum::ExplainStmt(stmt) => commands::explain::explain(self, stmt, sink),
            NodeEnum::AlterTableStmt(stmt) => commands::tablecmds::alter_table(self, stmt, sink),
            NodeEnum::RenameStmt(stmt) => commands::tablecmds::rename(self, stmt, sink),
            NodeEnum::CommentStmt(stmt) => commands::comment::comment(self, stmt, sink),
            NodeEnum::CreateTableAsStmt(stmt) => {
                commands::createas::create_table_as(self, stmt, &statement.text, sink)
            }
            NodeEnum::SelectStmt(select) if select.into_clause.is_some() => {
                commands::createas::select_into(self, select, &statement.text, sink)
            }
            NodeEnum::ViewStmt(stmt) => {
                commands::view::create_view(self, stmt, &statement.text, sink)
            }
            NodeEnum::RefreshMatViewStmt(stmt) => {
                commands::matview::refresh_matview(self, stmt, sink)
            }
            NodeEnum::CreateEnumStmt(stmt) => commands::typecmds::create_enum(self, stmt, sink),
            NodeEnum::AlterEnumStmt(stmt) => commands::typecmds::alter_enum(self, stmt, sink),
            NodeEnum::CreateDomainStmt(stmt) => commands::typecmds::create_domain(self, stmt, sink),
            NodeEnum::AlterDomainStmt(stmt) => commands::typecmds::alter_domain(self, stmt, sink),
            NodeEnum::CreateSchemaStmt(stmt) => {
                commands::schemacmds::create_schema(self, stmt, sink)
            }
            NodeEnum::AlterOwnerStmt(stmt) => commands::schemacmds::alter_owner(self, stmt, sink),
            NodeEnum::AlterObjectSchemaStmt(stmt) => {
                commands::tablecmds::set_schema(self, stmt, sink)
            }
            NodeEnum::ConstraintsSetStmt(stmt) => {
                commands::trigger::set_constraints(self, stmt, sink)
            }
            NodeEnum::VacuumStmt(stmt) => self.maintenance().vacuum(self, stmt, sink),
            NodeEnum::TruncateStmt(stmt) => commands::truncate::truncate(self, stmt, sink),
            NodeEnum::ReindexStmt(stmt) => self.maintenance().reindex(self, stmt, sink),
            NodeEnum::ClusterStmt(stmt) => self.maintenance().cluster(self, stmt, sink),
            NodeEnum::CreateSeqStmt(stmt) => commands::sequence::create_sequence(self, stmt, sink),
            NodeEnum::AlterSeqStmt(stmt) => commands::sequence::alter_sequence(self, stmt, sink),
            NodeEnum::CreatedbStmt(stmt) => commands::dbcommands::createdb(self, stmt, sink),
            NodeEnum::DropdbStmt(stmt) => commands::dbcommands::dropdb(self, stmt, sink),
            NodeEnum::CreateExtensionStmt(stmt) => {
                commands::extension::create_extension(self, stmt, sink)
            }
            NodeEnum::PrepareStmt(stmt) => commands::prepare::prepare(self, stmt, statement, sink),
            NodeEnum::ExecuteStmt(stmt) => commands::prepare::execute(self, stmt, sink),
            NodeEnum::DeallocateStmt(stmt) => commands::prepare::deallocate(self, stmt, sink),
            NodeEnum::CheckPointStmt(_) => {
                self.core.instance.engine.checkpoint()?;
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
        if !self.core.settings.get_bool("transaction_read_only") {
            return Ok(());
        }
        Err(SqlError::new("25006", format!("cannot execute {what} in a read-only transaction")))
    }

    /// fail -- applies an error to the transaction state (an explicit block
    /// becomes failed, an implicit transaction rolls back) and returns it.
    pub fn fail(&mut self, error: SqlError) -> SqlError {
        let error = self.name_the_interrupt(error);
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Explicit(mut txn) if txn.depth() > 0 => {
                txn.abort_current_level(&mut self.core.stats);
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
        match self.core.settings.get_enum("default_transaction_isolation") {
            "repeatable read" | "serializable" => IsolationLevel::RepeatableRead,
            _ => IsolationLevel::ReadCommitted,
        }
    }

    fn ensure_transaction(&mut self) {
        if matches!(self.block, Block::Idle) {
            let isolation = self.next_isolation.take().unwrap_or_else(|| self.default_isolation());
            self.block = Block::Implicit(self.core.begin(isolation));
            self.arm_transaction_timeout();
        }
    }

    /// The running transaction, if any (not a failed one).
    pub fn current_txn(&mut self) -> Option<&mut Transaction> {
        running(&mut self.block).map(|t| &mut **t)
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
                let isolation = isolation.unwrap_or_else(|| self.default_isolation());
                self.block = Block::Explicit(self.core.begin(isolation));
                self.arm_transaction_timeout();
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
        txn.define_savepoint(name, &mut self.core.settings);
        Ok(())
    }

    /// release_savepoint -- RELEASE [SAVEPOINT] `name` (ReleaseSavepoint): the
    /// savepoint's level and those above merge into the enclosing one.
    pub(crate) fn release_savepoint(&mut self, name: &str) -> Result<()> {
        let Block::Explicit(txn) = &mut self.block else {
            return Err(block_required("RELEASE SAVEPOINT"));
        };
        txn.release_savepoint(name, &mut self.core.xact_env()).map_err(|_| no_savepoint(name))
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
        txn.rollback_to_savepoint(name, &mut self.core.xact_env())
            .map_err(|_| no_savepoint(name))?;
        // A failed block recovers: the transaction goes on.
        self.block = match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Failed(Some(txn)) => Block::Explicit(txn),
            other => other,
        };
        Ok(())
    }

    /// prepare_block -- PREPARE TRANSACTION `gid`: the block's transaction
    /// leaves the session prepared. A failed block is rolled back instead, and
    /// without a block there is nothing to prepare (both report ROLLBACK).
    pub(crate) fn prepare_block(
        &mut self,
        gid: &str,
        sink: &mut dyn QuerySink,
    ) -> Result<&'static str> {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Explicit(mut txn) => {
                if let Err(e) = self.fire_deferred(&mut txn) {
                    self.finish(txn, false);
                    return Err(e);
                }
                let owner = self.core.user.clone();
                let cx = PrepareContext { gid, owner: &owner, database: self.core.database };
                let result = txn.prepare(&cx, &mut self.core.xact_env());
                self.after_transaction();
                result.map(|()| "PREPARE TRANSACTION")
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
        let engine = self.core.instance.engine.clone();
        match engine.txns().finish_prepared(gid, commit, self.core.database) {
            Err(refusal) => Err(two_phase_error(refusal)),
            Ok(result) => result.map_err(SqlError::from),
        }
    }

    fn commit(&mut self, mut txn: TransactionState) -> Result<()> {
        if let Err(e) = self.fire_deferred(&mut txn) {
            self.finish(txn, false);
            return Err(e);
        }
        let result = txn.commit(&mut self.core.xact_env());
        self.after_transaction();
        result
    }

    /// fire_deferred -- the checks of deferred foreign keys, before commit
    /// or PREPARE TRANSACTION (AfterTriggerFireDeferred); an error here
    /// aborts the transaction instead.
    fn fire_deferred(&mut self, txn: &mut TransactionState) -> Result<()> {
        let events = txn.after_triggers.take_deferred();
        if events.is_empty() {
            return Ok(());
        }
        let mut parts = self.core.parts(txn);
        executor::ri_triggers::fire(&mut parts, events)
    }

    fn finish(&mut self, txn: TransactionState, commit: bool) {
        if commit {
            let _ = self.commit(txn);
        } else {
            txn.rollback(&mut self.core.xact_env());
            self.after_transaction();
        }
    }

    /// The session's own clocks once a transaction has ended.
    fn after_transaction(&mut self) {
        self.deadlines.arm(&self.deadlines.transaction, None);
    }
}

impl BackendContext for Session {
    fn state(&self) -> &BackendState {
        &self.core
    }

    fn state_mut(&mut self) -> &mut BackendState {
        &mut self.core
    }

    fn xact(&mut self) -> Result<&mut TransactionState> {
        running(&mut self.block).ok_or_else(no_transaction)
    }

    fn parts(&mut self) -> Result<ExecParts<'_>> {
        let txn = running(&mut self.block).ok_or_else(no_transaction)?;
        Ok(self.core.parts(txn))
    }

    /// Commits the implicit transaction of a statement that runs as several
    /// transactions (CREATE INDEX CONCURRENTLY) and starts the next one.
    fn restart_transaction(&mut self) -> Result<()> {
        self.end_implicit(true)?;
        self.ensure_transaction();
        Ok(())
    }

    fn in_transaction_block(&self) -> bool {
        matches!(self.block, Block::Explicit(_))
    }

    fn set_next_isolation(&mut self, level: IsolationLevel) {
        self.next_isolation = Some(level);
    }

    fn is_in_transaction_block(&self) -> bool {
        self.in_transaction_block() || self.multi_statement
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.core.instance.activity.remove(self.core.pid);
        if let Block::Implicit(txn) | Block::Explicit(txn) | Block::Failed(Some(txn)) =
            std::mem::replace(&mut self.block, Block::Idle)
        {
            self.finish(txn, false);
        }
    }
}

/// The transaction of a block that has one running (not a failed one).
fn running(block: &mut Block) -> Option<&mut TransactionState> {
    match block {
        Block::Implicit(t) | Block::Explicit(t) => Some(t),
        _ => None,
    }
}

/// XX000: a statement's parts asked for outside a transaction.
fn no_transaction() -> SqlError {
    SqlError::internal("no transaction is running")
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
