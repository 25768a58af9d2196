//! Queries the executor runs for itself (PostgreSQL's SPI, `executor/spi.c`):
//! the referential-integrity checks and actions of `ri_triggers`, which
//! PostgreSQL also writes as SQL text and runs through SPI.
//!
//! A query is SQL text with `$n` parameters of given types. It is planned
//! through the session's plan cache like a client's statement — keyed by
//! its text and parameter types, kept valid by the same catalog checks —
//! so a check repeated for every row of a bulk insert is planned once.
//!
//! Every query runs as SPI runs a query that may write: after a
//! command-counter increment, so it sees what ran before it in the
//! transaction (the rows of the statement whose events are firing), and in
//! an after-trigger level of its own, so the events its changes queue (a
//! cascaded delete reaching a third table) run when it ends, before the
//! caller goes on. Under READ COMMITTED it takes a new snapshot, as SPI's
//! GetTransactionSnapshot does; under REPEATABLE READ it keeps the
//! transaction's, unless the caller switched to the latest one
//! (`Transaction::use_latest_snapshot`).

use super::context::ExecParts;
use super::host::ExecHost;
use super::plancache::KeptPlan;
use super::{in_query_level, modify, plan, plan_statement};
use crate::error::{Result, SqlError};
use crate::parser::parse;
use crate::sink::{OutputColumn, QuerySink};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_txn::IsolationLevel;
use sluice_types::{Datum, SqlType};

/// What a query returned: the rows of a SELECT (at most the limit asked
/// for), or how many rows a data-changing query changed.
#[derive(Debug, Default)]
pub struct SpiResult {
    pub rows: Vec<Vec<Datum>>,
    pub processed: u64,
}

/// execute -- runs `sql` (one SELECT, INSERT, UPDATE or DELETE) with
/// `params` of `types`; a SELECT stops after `limit` rows (rows it does not
/// fetch are not locked by its FOR KEY SHARE).
pub fn execute(
    parts: &mut ExecParts,
    sql: &str,
    params: Vec<Datum>,
    types: &[SqlType],
    limit: Option<usize>,
) -> Result<SpiResult> {
    let mut statements = parse(sql)?;
    let statement = match (statements.pop(), statements.is_empty()) {
        (Some(statement), true) => statement,
        _ => return Err(SqlError::internal("an internal query must be one statement")),
    };
    parts.txn.increment_command();
    if parts.txn.isolation() == IsolationLevel::ReadCommitted {
        parts.txn.end_statement();
    }
    let mut param_types = types.iter().copied().map(Some).collect();
    let plan = plan_statement(parts, &statement, &mut param_types)?;
    in_query_level(parts, |parts| match &plan {
        KeptPlan::Select(planned) => select_rows(parts, &planned.plan, params, limit),
        KeptPlan::Modify(plan) => {
            let mut counted = CountRows::default();
            modify::execute(parts, plan, params, &mut counted)?;
            Ok(SpiResult { rows: Vec::new(), processed: counted.processed })
        }
    })
}

/// select_rows -- up to `limit` rows of a planned SELECT.
fn select_rows(
    parts: &mut ExecParts,
    plan: &plan::Plan,
    params: Vec<Datum>,
    limit: Option<usize>,
) -> Result<SpiResult> {
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut host = ExecHost::new(&mut parts.env, params, ctx.clone()).with_transaction(parts.txn);
    let mut source = plan::open(plan, parts.engine, &ctx)?;
    let mut result = SpiResult::default();
    while limit.is_none_or(|l| result.rows.len() < l) {
        let Some(row) = source.next(&mut host)? else { break };
        result.rows.push(row);
        result.processed += 1;
    }
    Ok(result)
}

/// Takes the count from a data-changing query's command tag.
#[derive(Default)]
struct CountRows {
    processed: u64,
}

impl QuerySink for CountRows {
    fn columns(&mut self, _columns: &[OutputColumn]) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, _values: &[Datum]) -> Result<()> {
        Ok(())
    }

    fn complete(&mut self, tag: &str) -> Result<()> {
        self.processed = tag.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
        Ok(())
    }

    fn notice(&mut self, _notice: &SqlError) -> Result<()> {
        Ok(())
    }
}
