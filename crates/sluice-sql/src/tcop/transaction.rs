//! BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE and
//! ROLLBACK TO (PostgreSQL's transaction block commands in `xact.c`; the block
//! state machine is `session.rs`'s, the subtransactions `sluice-txn`'s
//! `xact/subxact.rs`). In a failed block only the commands that end or repair
//! it run (PostgreSQL's IsTransactionExitStmt); the rest get 25P02.
//! PREPARE TRANSACTION, COMMIT PREPARED and ROLLBACK PREPARED are
//! `sluice-txn`'s `xact/twophase.rs`.

use super::session::{aborted_block_error, Session};
use crate::commands::variable::{on_off, parse_isolation, read_only_option};
use crate::error::{Result, SqlError};
use crate::parser::node_str;
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
    // COMMIT / ROLLBACK AND CHAIN would have to open the next transaction
    // with the same characteristics; until it does, it must not end the
    // block as a plain COMMIT would.
    crate::parser::unsupported::refuse(
        stmt.chain,
        "COMMIT AND CHAIN and ROLLBACK AND CHAIN are not supported yet",
    )?;
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
    let option = isolation_option(stmt)?;
    let read_only = read_only_option(&stmt.options);
    session.begin_block(option.as_ref().map(|(level, _)| *level), tag, sink)?;
    if let Some((_, name)) = option {
        session.settings().set("transaction_isolation", &name)?;
    }
    if let Some(read_only) = read_only {
        session.settings().set("transaction_read_only", on_off(read_only))?;
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
