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
//! Plans are not kept here: the session's plan cache (`plancache.rs`)
//! already keeps the plan of each statement text, so EXECUTE neither parses
//! nor plans again. The parameter values of EXECUTE are expressions,
//! analyzed without columns, cast to the parameter types by assignment,
//! and evaluated once before the statement runs.

use std::collections::HashMap;
use std::sync::Arc;

use pg_query::protobuf::{DeallocateStmt, ExecuteStmt, PrepareStmt};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_types::{Datum, SqlType};

use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::{self, host::ExecHost};
use crate::expr::{analyze, coerce_to_parameter, eval, type_from_name_in, Scope};
use crate::optimizer::planhost::PlanHost;
use crate::parser::RawStatement;
use crate::sink::{OutputColumn, QuerySink};

/// One prepared statement.
pub struct PreparedStatement {
    /// The statement; `None` for an empty query string (protocol only).
    pub statement: Option<RawStatement>,
    /// The parameter types, given or inferred (`None`: not determined,
    /// which the protocol reports as `text`).
    pub param_types: Vec<Option<SqlType>>,
    /// The result columns, as planned when prepared.
    pub columns: Option<Vec<OutputColumn>>,
    /// Made by SQL's PREPARE rather than the protocol's Parse.
    pub from_sql: bool,
    /// When it was prepared (`timestamptz`).
    pub prepare_time: i64,
}

/// A backend's prepared statements by name (the unnamed one under "").
#[derive(Default)]
pub struct PreparedStatements {
    by_name: HashMap<String, Arc<PreparedStatement>>,
}

impl PreparedStatements {
    /// insert -- adds `statement` as `name`: "" replaces the unnamed one, a
    /// named one must be new.
    pub fn insert(&mut self, name: &str, statement: PreparedStatement) -> Result<()> {
        if !name.is_empty() && self.by_name.contains_key(name) {
            return Err(SqlError::new(
                "42P05",
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        self.by_name.insert(name.to_string(), Arc::new(statement));
        Ok(())
    }

    /// The statement called `name` (26000 if there is none).
    pub fn get(&self, name: &str) -> Result<Arc<PreparedStatement>> {
        self.by_name.get(name).cloned().ok_or_else(|| missing(name))
    }

    /// Removes `name`, if it exists.
    pub fn remove(&mut self, name: &str) -> Option<Arc<PreparedStatement>> {
        self.by_name.remove(name)
    }

    /// The named statements SQL or the protocol made, by name
    /// (`pg_prepared_statements`).
    pub fn named(&self) -> Vec<(&str, &PreparedStatement)> {
        let mut named: Vec<_> = self
            .by_name
            .iter()
            .filter(|(name, _)| !name.is_empty())
            .map(|(name, p)| (name.as_str(), p.as_ref()))
            .collect();
        named.sort_by_key(|(name, _)| *name);
        named
    }
}

/// 26000 for a statement that is not there.
fn missing(name: &str) -> SqlError {
    let message = match name {
        "" => "unnamed prepared statement does not exist".to_string(),
        name => format!("prepared statement \"{name}\" does not exist"),
    };
    SqlError::new("26000", message)
}

impl PreparedStatement {
    /// A statement prepared now, described by its parameter types and
    /// result columns.
    pub fn new(
        statement: Option<RawStatement>,
        param_types: Vec<Option<SqlType>>,
        columns: Option<Vec<OutputColumn>>,
        from_sql: bool,
    ) -> PreparedStatement {
        let prepare_time = crate::expr::now_timestamptz();
        PreparedStatement { statement, param_types, columns, from_sql, prepare_time }
    }
}

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
    let prepared = PreparedStatement::new(Some(statement), param_types, columns, true);
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
