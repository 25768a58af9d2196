//! Running queries: SELECT through a plan tree (`select.rs`, `plan.rs`),
//! INSERT/UPDATE/DELETE through the heap's change functions (`modify.rs`),
//! with `host.rs` answering expressions' questions about the session.

mod backend_status;
mod explain;
mod functions;
pub mod host;
pub mod indexing;
pub mod indexscan;
pub mod modify;
pub mod plan;
pub mod select;
mod sysviews;

use crate::commands::tablecmds::lock_relation_in;
use crate::error::Result;
use crate::parser::RawStatement;
use crate::plancache::PlannedUnder;
use crate::session::{ExecParts, Session};
use crate::sink::QuerySink;
pub use explain::explain;
pub(crate) use explain::expr as deparse;
use host::ExecHost;
use pg_query::NodeEnum;
use select::Planned;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_types::{Datum, SqlType};
use std::sync::Arc;

/// run -- executes a SELECT, INSERT, UPDATE or DELETE with bound `params`.
pub fn run(
    session: &mut Session,
    statement: &RawStatement,
    params: &[Datum],
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let mut param_types: Vec<Option<SqlType>> = params.iter().map(|p| p.natural_type()).collect();
    let mut parts = session.parts()?;
    if needs_xid(&statement.text) {
        parts.txn.assign_top_xid();
    }
    match &statement.node {
        NodeEnum::SelectStmt(select) => {
            let given = param_types.clone();
            let settings = parts.env.settings.changes();
            let planned = match reuse_plan(&mut parts, &statement.text, &given, settings)? {
                Some(kept) => kept,
                None => {
                    parts.plan_log.locks.clear();
                    let planned = select::plan_select(&mut parts, select, &mut param_types)?;
                    let planned = Arc::new(planned);
                    keep_plan(&mut parts, (&statement.text, given), &planned, settings);
                    planned
                }
            };
            sink.columns(&planned.columns)?;
            let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
            let mut host = ExecHost::new(&mut parts.env, params.to_vec(), ctx.clone());
            let mut source = plan::open(&planned.plan, parts.engine, &ctx)?;
            let mut count = 0u64;
            while let Some(row) = source.next(&mut host)? {
                sink.row(&row)?;
                count += 1;
            }
            sink.complete(&format!("SELECT {count}"))
        }
        NodeEnum::InsertStmt(insert) => {
            modify::insert(&mut parts, insert, Some(params.to_vec()), &mut param_types, sink)
        }
        NodeEnum::UpdateStmt(update) => {
            modify::update(&mut parts, update, Some(params.to_vec()), &mut param_types, sink)
        }
        NodeEnum::DeleteStmt(delete) => {
            modify::delete(&mut parts, delete, Some(params.to_vec()), &mut param_types, sink)
        }
        _ => Err(crate::SqlError::internal("not a query")),
    }
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
) -> Result<Option<Arc<Planned>>> {
    let Some(kept) = parts.plans.candidate(text, given, settings) else { return Ok(None) };
    for &(oid, mode) in &kept.locks {
        lock_relation_in(parts, oid, mode)?;
    }
    let snapshot = parts.txn.snapshot();
    let valid = kept.still_valid(&snapshot, parts.engine.txns().catalog_changes());
    Ok(valid.then(|| kept.planned.clone()))
}

/// keep_plan -- offers a fresh plan to the session's cache, unless it holds
/// rows computed while planning.
fn keep_plan(
    parts: &mut ExecParts,
    key: (&str, Vec<Option<SqlType>>),
    planned: &Arc<Planned>,
    settings: u64,
) {
    if parts.plan_log.reads_live_state {
        return;
    }
    let snapshot = parts.txn.snapshot();
    let locks = std::mem::take(&mut parts.plan_log.locks);
    let under = PlannedUnder { snapshot: &snapshot, settings, locks };
    let changes = parts.engine.txns().catalog_changes();
    parts.plans.put(key, planned.clone(), under, changes);
}

/// describe -- the result columns `statement` would return (None for
/// statements without rows), inferring parameter types into `param_types`;
/// nothing is executed (extended protocol Describe).
pub fn describe(
    session: &mut Session,
    statement: &RawStatement,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<Option<Vec<crate::sink::OutputColumn>>> {
    let mut parts = session.parts()?;
    let mut columns = ColumnsOnly(None);
    match &statement.node {
        NodeEnum::SelectStmt(select) => {
            return Ok(Some(select::plan_select(&mut parts, select, param_types)?.columns))
        }
        NodeEnum::InsertStmt(insert) => {
            modify::insert(&mut parts, insert, None, param_types, &mut columns)?
        }
        NodeEnum::UpdateStmt(update) => {
            modify::update(&mut parts, update, None, param_types, &mut columns)?
        }
        NodeEnum::DeleteStmt(delete) => {
            modify::delete(&mut parts, delete, None, param_types, &mut columns)?
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
