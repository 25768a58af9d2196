//! Running queries: the optimizer plans them (`optimizer/select.rs`,
//! `optimizer/modify.rs`); here a SELECT runs through a plan tree
//! (`plan.rs`), INSERT/UPDATE/DELETE through the heap's change functions
//! (`modify.rs`), with `host.rs` answering expressions' questions about the
//! session and `context.rs` lending the planner what it asks of the backend.

mod backend_status;
pub mod bitmapscan;
pub mod constraints;
pub mod context;
pub(crate) mod functions;
pub mod host;
pub mod indexing;
pub mod indexonlyscan;
pub mod indexscan;
pub mod lmgr;
pub mod maintenance;
pub mod modify;
mod onconflict;
mod pgstat_views;
pub mod plan;
pub mod plancache;
pub mod prepared;
pub mod ri_triggers;
pub(crate) mod scanstats;
pub(crate) mod spi;
pub(crate) mod spill;
mod sysviews;

use crate::error::Result;
use crate::executor::context::BackendContext;
use crate::executor::context::ExecParts;
use crate::executor::lmgr::lock_relation_in;
use crate::executor::plancache::{KeptPlan, PlannedUnder};
use crate::optimizer::select::{self, Planned};
use crate::parser::RawStatement;
use crate::sink::QuerySink;
use functions::RegColumns;
use host::ExecHost;
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_types::{Datum, SqlType};
use std::sync::Arc;

/// run -- executes a SELECT, INSERT, UPDATE or DELETE with bound `params`.
pub fn run(
    cx: &mut dyn BackendContext,
    statement: &RawStatement,
    params: &[Datum],
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let mut param_types: Vec<Option<SqlType>> = params.iter().map(|p| p.natural_type()).collect();
    let mut parts = cx.parts()?;
    if needs_xid(&statement.text) {
        parts.txn.assign_top_xid();
    }
    let plan = plan_statement(&mut parts, statement, &mut param_types)?;
    // The command tag waits for the statement's foreign-key events: one
    // failing fails the statement, which then reports no tag.
    let mut held = HoldTag { sink, tag: None };
    in_query_level(&mut parts, |parts| match &plan {
        KeptPlan::Select(planned) => run_select(parts, planned, params, &mut held),
        KeptPlan::Modify(plan) => modify::execute(parts, plan, params.to_vec(), &mut held),
    })?;
    match held.tag {
        Some(tag) => sink.complete(&tag),
        None => Ok(()),
    }
}

/// Passes everything to `sink` but the command tag, which it keeps.
struct HoldTag<'s> {
    sink: &'s mut dyn QuerySink,
    tag: Option<String>,
}

impl QuerySink for HoldTag<'_> {
    fn columns(&mut self, columns: &[crate::sink::OutputColumn]) -> Result<()> {
        self.sink.columns(columns)
    }

    fn row(&mut self, values: &[Datum]) -> Result<()> {
        self.sink.row(values)
    }

    fn complete(&mut self, tag: &str) -> Result<()> {
        self.tag = Some(tag.to_string());
        Ok(())
    }

    fn notice(&mut self, notice: &crate::SqlError) -> Result<()> {
        self.sink.notice(notice)
    }

    fn output_context(&mut self, context: &sluice_types::Context) {
        self.sink.output_context(context)
    }

    fn reads_as_text(&self, column: usize) -> bool {
        self.sink.reads_as_text(column)
    }

    fn info(&mut self, info: &crate::SqlError) -> Result<()> {
        self.sink.info(info)
    }

    fn warning(&mut self, warning: &crate::SqlError) -> Result<()> {
        self.sink.warning(warning)
    }
}

/// plan_statement -- the plan of `statement` for parameters of
/// `param_types` (inferring the unknown ones): the session's kept plan if
/// it is still right, else a new one, offered to the cache.
pub(crate) fn plan_statement(
    parts: &mut ExecParts,
    statement: &RawStatement,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<KeptPlan> {
    let given = param_types.clone();
    let settings = parts.env.settings.changes();
    if let Some(plan) = reuse_plan(parts, &statement.text, &given, settings)? {
        return Ok(plan);
    }
    parts.plan_log.locks.clear();
    let plan = match &statement.node {
        NodeEnum::SelectStmt(select) => {
            KeptPlan::Select(Arc::new(select::plan_select(parts, select, param_types)?))
        }
        node => KeptPlan::Modify(Arc::new(modify::plan(parts, node, param_types)?)),
    };
    keep_plan(parts, (&statement.text, given), &plan, settings);
    Ok(plan)
}

/// in_query_level -- runs `query` in an after-trigger level of its own
/// (AfterTriggerBeginQuery/EndQuery): the foreign-key events its row
/// changes queue run once it has finished, those of deferred constraints
/// wait for commit; a failed query's events are dropped.
pub(crate) fn in_query_level<T>(
    parts: &mut ExecParts,
    query: impl FnOnce(&mut ExecParts) -> Result<T>,
) -> Result<T> {
    let level = parts.txn.after_triggers.begin_query();
    match query(parts) {
        Ok(value) => {
            let events = parts.txn.after_triggers.end_query(level);
            ri_triggers::fire(parts, events)?;
            Ok(value)
        }
        Err(e) => {
            parts.txn.after_triggers.abandon_query(level);
            Err(e)
        }
    }
}

/// run_select -- sends the rows of a planned SELECT.
fn run_select(
    parts: &mut ExecParts,
    planned: &Planned,
    params: &[Datum],
    sink: &mut dyn QuerySink,
) -> Result<()> {
    sink.columns(&planned.columns)?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut host =
        ExecHost::new(&mut parts.env, params.to_vec(), ctx.clone()).with_transaction(parts.txn);
    let mut source = plan::open(&planned.plan, parts.engine, &ctx)?;
    let names = RegColumns::of(planned.columns.iter().map(|c| c.ty), |i| sink.reads_as_text(i));
    let mut count = 0u64;
    while let Some(mut row) = source.next(&mut host)? {
        names.name(&mut host, &mut row)?;
        sink.row(&row)?;
        count += 1;
    }
    sink.complete(&format!("SELECT {count}"))
}

/// reuse_plan -- the session's kept plan for `text` with the `given`
/// parameter types, if it is still right: its locks are taken again first,
/// then the statement's snapshot must see the catalogs it was planned
/// against (`plancache.rs`).
fn reuse_plan(
    parts: &mut ExecParts,
    text: &str,
    given: &[Option<SqlType>],
    settings: u64,
) -> Result<Option<KeptPlan>> {
    let Some(kept) = parts.plans.candidate(text, given, settings) else { return Ok(None) };
    for &(oid, mode) in &kept.locks {
        lock_relation_in(parts, oid, mode)?;
    }
    let snapshot = parts.txn.snapshot();
    let valid = kept.still_valid(&snapshot, parts.engine.txns().catalog_changes());
    Ok(valid.then(|| kept.plan.clone()))
}

/// keep_plan -- offers a fresh plan to the session's cache, unless it holds
/// rows computed while planning.
fn keep_plan(
    parts: &mut ExecParts,
    key: (&str, Vec<Option<SqlType>>),
    plan: &KeptPlan,
    settings: u64,
) {
    if parts.plan_log.reads_live_state {
        return;
    }
    let snapshot = parts.txn.snapshot();
    let locks = std::mem::take(&mut parts.plan_log.locks);
    let under = PlannedUnder { snapshot: &snapshot, settings, locks };
    let changes = parts.engine.txns().catalog_changes();
    parts.plans.put(key, plan.clone(), under, changes);
}

/// describe -- the result columns `statement` would return (None for
/// statements without rows), inferring parameter types into `param_types`;
/// nothing is executed (extended protocol Describe).
pub fn describe(
    cx: &mut dyn BackendContext,
    statement: &RawStatement,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<Option<Vec<crate::sink::OutputColumn>>> {
    let mut parts = cx.parts()?;
    let mut columns = ColumnsOnly(None);
    match &statement.node {
        NodeEnum::SelectStmt(select) => {
            return Ok(Some(select::plan_select(&mut parts, select, param_types)?.columns))
        }
        node @ (NodeEnum::InsertStmt(_) | NodeEnum::UpdateStmt(_) | NodeEnum::DeleteStmt(_)) => {
            modify::run(&mut parts, node, None, param_types, &mut columns)?
        }
        _ => {}
    }
    Ok(columns.0)
}

/// Captures the columns a statement announces (RETURNING) while describing it.
struct ColumnsOnly(Option<Vec<crate::sink::OutputColumn>>);

impl QuerySink for ColumnsOnly {
    fn columns(&mut self, columns: &[crate::sink::OutputColumn]) -> Result<()> {
        self.0 = Some(columns.to_vec());
        Ok(())
    }

    fn row(&mut self, _values: &[Datum]) -> Result<()> {
        Ok(())
    }

    fn complete(&mut self, _tag: &str) -> Result<()> {
        Ok(())
    }

    fn notice(&mut self, _notice: &crate::SqlError) -> Result<()> {
        Ok(())
    }
}

/// Whether the statement calls a function that reports the transaction's id,
/// which PostgreSQL assigns on demand (txid_current(), pg_current_xact_id()).
fn needs_xid(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("txid_current") || lower.contains("pg_current_xact_id")
}
