//! Prepared statements: SQL's PREPARE, EXECUTE and DEALLOCATE, and the
//! table of them that the protocol's Parse, Bind and Close share
//! (PostgreSQL's `commands/prepare.c`).
//!
//! A prepared statement is a parsed statement with its parameter types and
//! result columns, found by name. Both ways of making one put it in the
//! backend's one table, so `PREPARE s AS ...` can be bound by the protocol
//! and a protocol-prepared statement can be run by `EXECUTE`, as in
//! PostgreSQL. The names follow PostgreSQL's rules: the unnamed statement
//! (only the protocol makes it) is replaced silently, a named one must be
//! new (42P05), a missing one is 26000; Close of a missing one is no error,
//! DEALLOCATE of one is.
//!
//! The table itself is the backend's (`executor/prepared.rs`). Plans are
//! not kept there: the session's plan cache (`plancache.rs`)
//! already keeps the plan of each statement text, so EXECUTE neither parses
//! nor plans again. The parameter values of EXECUTE are expressions,
//! analyzed without columns, cast to the parameter types by assignment,
//! and evaluated once before the statement runs.

use pg_query::protobuf::{DeallocateStmt, ExecuteStmt, PrepareStmt};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_types::{Datum, SqlType};

use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::prepared::{missing, PreparedStatement, PreparedStatements};
use crate::executor::{self, host::ExecHost};
use crate::expr::{analyze, coerce_to_parameter, eval, type_from_name_in, Scope};
use crate::optimizer::planhost::PlanHost;
use crate::parser::RawStatement;
use crate::sink::QuerySink;

/// PREPARE name [(type, ...)] AS statement.
pub fn prepare(
    cx: &mut dyn BackendContext,
    stmt: &PrepareStmt,
    outer: &RawStatement,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let query = stmt
        .query
        .as_ref()
        .and_then(|q| q.node.clone())
        .ok_or_else(|| SqlError::internal("PREPARE without a statement"))?;
    let types = cx.type_catalog()?;
    let mut param_types = Vec::with_capacity(stmt.argtypes.len());
    for arg in &stmt.argtypes {
        let Some(NodeEnum::TypeName(type_name)) = arg.node.as_ref() else {
            return Err(SqlError::internal("PREPARE parameter without a type"));
        };
        let (ty, _) = type_from_name_in(type_name, &mut |s, n| types.by_name(s, n))?;
        param_types.push(Some(ty));
    }
    // The statement keeps the whole PREPARE's text: its parse tree's
    // locations point into it.
    let statement =
        RawStatement { node: query, location: outer.location, text: outer.text.clone() };
    let given = param_types.len();
    let columns = executor::describe(cx, &statement, &mut param_types)?;
    if let Some(i) = param_types.iter().skip(given).position(Option::is_none) {
        return Err(SqlError::new(
            "42P18",
            format!("could not determine data type of parameter ${}", given + i + 1),
        ));
    }
    let prepared = PreparedStatement { statement: Some(statement), param_types, columns };
    cx.state_mut().prepared.insert(&stmt.name, prepared)?;
    sink.complete("PREPARE")
}

/// EXECUTE name [(value, ...)]: runs the prepared statement with the
/// values as its parameters; the command tag is the statement's.
pub fn execute(
    cx: &mut dyn BackendContext,
    stmt: &ExecuteStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let prepared = cx.state().prepared.get(&stmt.name)?;
    let Some(statement) = &prepared.statement else {
        return sink.complete("");
    };
    let expected = prepared.param_types.len();
    if stmt.params.len() != expected {
        return Err(SqlError::new(
            "42601",
            format!("wrong number of parameters for prepared statement \"{}\"", stmt.name),
        )
        .with_detail(format!("Expected {expected} parameters but got {}.", stmt.params.len())));
    }
    let params = parameter_values(cx, stmt, &prepared.param_types)?;
    executor::run(cx, statement, &params, sink)
}

/// The values of EXECUTE's parameter expressions, each cast to its
/// parameter's type by assignment (42804 if it cannot be).
fn parameter_values(
    cx: &mut dyn BackendContext,
    stmt: &ExecuteStmt,
    types: &[Option<SqlType>],
) -> Result<Vec<Datum>> {
    let catalog = cx.type_catalog()?;
    let mut exprs = Vec::with_capacity(types.len());
    let mut no_params = Vec::new();
    let mut host = PlanHost::new(&mut no_params).with_types(catalog);
    for (i, (node, ty)) in stmt.params.iter().zip(types).enumerate() {
        let expr = analyze(node, &Scope::default(), &mut host)?;
        let to = ty.unwrap_or(SqlType::Text);
        exprs.push(coerce_to_parameter(&mut host, expr, to, i + 1)?);
    }
    let mut parts = cx.parts()?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx);
    exprs.iter().map(|e| eval(e, &[], &mut host)).collect()
}

/// DEALLOCATE [PREPARE] { name | ALL }.
pub fn deallocate(
    cx: &mut dyn BackendContext,
    stmt: &DeallocateStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if stmt.isall {
        cx.state_mut().prepared = PreparedStatements::default();
        return sink.complete("DEALLOCATE ALL");
    }
    cx.state_mut().prepared.remove(&stmt.name).ok_or_else(|| missing(&stmt.name))?;
    sink.complete("DEALLOCATE")
}
