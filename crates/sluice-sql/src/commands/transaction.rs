//! BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE and
//! ROLLBACK TO (PostgreSQL's transaction block commands in `xact.c`; the block
//! state machine is `session.rs`'s, the subtransactions `sluice-txn`'s
//! `xact/subxact.rs`). In a failed block only the commands that end or repair
//! it run (PostgreSQL's IsTransactionExitStmt); the rest get 25P02.
//! PREPARE TRANSACTION, COMMIT PREPARED and ROLLBACK PREPARED are
//! `sluice-txn`'s `xact/twophase.rs`.

use super::node_str;
use crate::error::{Result, SqlError};
use crate::parser::unsupported::refuse;
use crate::session::{aborted_block_error, Session};
use crate::sink::QuerySink;
use pg_query::protobuf::{TransactionStmt, TransactionStmtKind};
use pg_query::NodeEnum;
use sluice_txn::IsolationLevel;

/// Runs a transaction control statement.
pub fn run(session: &mut Session, stmt: &TransactionStmt, sink: &mut dyn QuerySink) -> Result<()> {
    let kind = TransactionStmtKind::try_from(stmt.kind).unwrap_or(TransactionStmtKind::Undefined);
    if session.in_failed_block() && !exits_failed_block(kind) {
        return Err(aborted_block_error());
    }
    match kind {
        TransactionStmtKind::TransStmtBegin => begin(session, stmt, "BEGIN", sink),
        TransactionStmtKind::TransStmtStart => begin(session, stmt, "START TRANSACTION", sink),
        TransactionStmtKind::TransStmtCommit => {
            let tag = session.end_block(true, sink)?;
            sink.complete(tag)
        }
        TransactionStmtKind::TransStmtRollback => {
            let tag = session.end_block(false, sink)?;
            sink.complete(tag)
        }
        TransactionStmtKind::TransStmtSavepoint => {
            session.define_savepoint(&stmt.savepoint_name)?;
            sink.complete("SAVEPOINT")
        }
        TransactionStmtKind::TransStmtRelease => {
            session.release_savepoint(&stmt.savepoint_name)?;
            sink.complete("RELEASE")
        }
        TransactionStmtKind::TransStmtRollbackTo => {
            session.rollback_to_savepoint(&stmt.savepoint_name)?;
            sink.complete("ROLLBACK")
        }
        TransactionStmtKind::TransStmtPrepare => {
            let tag = session.prepare_block(&stmt.gid, sink)?;
            sink.complete(tag)
        }
        TransactionStmtKind::TransStmtCommitPrepared => {
            session.finish_prepared(&stmt.gid, true)?;
            sink.complete("COMMIT PREPARED")
        }
        TransactionStmtKind::TransStmtRollbackPrepared => {
            session.finish_prepared(&stmt.gid, false)?;
            sink.complete("ROLLBACK PREPARED")
        }
        _ => Err(SqlError::unsupported("this transaction statement is not supported yet")),
    }
}

/// Whether `kind` may run in a failed block (IsTransactionExitStmt).
fn exits_failed_block(kind: TransactionStmtKind) -> bool {
    matches!(
        kind,
        TransactionStmtKind::TransStmtCommit
            | TransactionStmtKind::TransStmtRollback
            | TransactionStmtKind::TransStmtRollbackTo
            | TransactionStmtKind::TransStmtPrepare
    )
}

/// begin -- BEGIN / START TRANSACTION: opens the block, and an ISOLATION LEVEL
/// option becomes the transaction's `transaction_isolation` (which SHOW and
/// current_setting report, and which reverts when the transaction ends).
fn begin(
    session: &mut Session,
    stmt: &TransactionStmt,
    tag: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    refuse_transaction_modes(&stmt.options)?;
    let option = isolation_option(stmt)?;
    session.begin_block(option.as_ref().map(|(level, _)| *level), tag, sink)?;
    if let Some((_, name)) = option {
        session.settings().set("transaction_isolation", &name)?;
    }
    Ok(())
}

/// refuse_transaction_modes -- 0A000 for the transaction modes of BEGIN,
/// START TRANSACTION and SET TRANSACTION that sluice does not implement
/// (see `parser/unsupported.rs`). ISOLATION LEVEL is read by the callers
/// (SERIALIZABLE runs as REPEATABLE READ, see docs/architecture.md) and READ
/// WRITE is what every transaction is. READ ONLY is refused: sluice would
/// not stop the transaction's writes. [NOT] DEFERRABLE is accepted: it
/// matters only to a SERIALIZABLE READ ONLY transaction, and so has no
/// effect here.
pub(crate) fn refuse_transaction_modes(options: &[pg_query::protobuf::Node]) -> Result<()> {
    for option in options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        let on = def.arg.as_deref().and_then(node_str).is_some_and(|v| v != "0" && v != "false");
        refuse(
            def.defname == "transaction_read_only" && on,
            "read-only transactions are not supported yet",
        )?;
    }
    Ok(())
}

/// The ISOLATION LEVEL option of BEGIN / START TRANSACTION, if given: the
/// level sluice runs and the name the client asked for.
fn isolation_option(stmt: &TransactionStmt) -> Result<Option<(IsolationLevel, String)>> {
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        if def.defname == "transaction_isolation" {
            let level = def.arg.as_deref().and_then(node_str).unwrap_or_default();
            return parse_isolation(&level).map(|parsed| Some((parsed, level)));
        }
    }
    Ok(None)
}

/// The isolation level named `level` (as the grammar spells it).
pub fn parse_isolation(level: &str) -> Result<IsolationLevel> {
    match level {
        "read uncommitted" | "read committed" => Ok(IsolationLevel::ReadCommitted),
        "repeatable read" | "serializable" => Ok(IsolationLevel::RepeatableRead),
        other => Err(SqlError::new(
            "22023",
            format!("invalid value for parameter \"transaction_isolation\": \"{other}\""),
        )),
    }
}
