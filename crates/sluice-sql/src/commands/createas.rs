//! CREATE TABLE ... AS and SELECT ... INTO (PostgreSQL's
//! `commands/createas.c`).
//!
//! PostgreSQL plans the query, creates the table from the plan's result
//! columns and has the executor's DestReceiver insert every row. sluice
//! takes the same steps through statements it already has: the query is
//! described (planned, not run) for its columns' names, types and type
//! modifiers; the table is created from a CREATE TABLE built of them
//! (so persistence, WITH options, ON COMMIT and tablespaces are checked as
//! CREATE TABLE checks them); then `INSERT INTO table query` runs the query
//! and stores its rows. Both run under the statement's transaction: the
//! new table is locked AccessExclusive by its creation and invisible to
//! others until commit. The command tag is `SELECT n`, as in PostgreSQL;
//! `WITH NO DATA` creates the table only.

use super::sequence::relation_exists;
use super::tablecmds::create_table;
use crate::error::{Result, SqlError};
use crate::executor;
use crate::executor::context::BackendContext;
use crate::expr::parse_type_name;
use crate::parser::{node_str, RawStatement};
use crate::sink::{NestedSink, OutputColumn, QuerySink};
use pg_query::protobuf::{
    ColumnDef, CreateStmt, CreateTableAsStmt, InsertStmt, IntoClause, Node, ObjectType, SelectStmt,
};
use pg_query::NodeEnum;

/// CREATE TABLE [IF NOT EXISTS] name [(columns)] AS query [WITH [NO] DATA].
pub fn create_table_as(
    cx: &mut dyn BackendContext,
    stmt: &CreateTableAsStmt,
    text: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let into =
        stmt.into.as_deref().ok_or_else(|| SqlError::internal("CREATE TABLE AS without INTO"))?;
    let query = match stmt.query.as_deref().and_then(|q| q.node.as_ref()) {
        Some(NodeEnum::SelectStmt(select)) => select.as_ref().clone(),
        _ => return Err(SqlError::unsupported("CREATE TABLE AS EXECUTE is not supported yet")),
    };
    let rv = into_relation(into)?;
    let matview = ObjectType::try_from(stmt.objtype) == Ok(ObjectType::ObjectMatview);
    if stmt.if_not_exists {
        let namespace = cx.creation_namespace(rv)?;
        if relation_exists(cx, namespace, &rv.relname)? {
            let skipping = format!("relation \"{}\" already exists, skipping", rv.relname);
            sink.notice(&SqlError::new("42P07", skipping))?;
            let tag = match matview {
                true => "CREATE MATERIALIZED VIEW",
                false => "CREATE TABLE AS",
            };
            return sink.complete(tag);
        }
    }
    if matview {
        return super::matview::create_matview(cx, stmt, query, text, sink);
    }
    let rows = create_and_fill(cx, into, query, text, &mut NestedSink::new(sink))?;
    complete(rows, sink)
}

/// `SELECT n`, or `CREATE TABLE AS` for a table made WITH NO DATA.
fn complete(rows: Option<u64>, sink: &mut dyn QuerySink) -> Result<()> {
    match rows {
        Some(rows) => sink.complete(&format!("SELECT {rows}")),
        None => sink.complete("CREATE TABLE AS"),
    }
}

/// SELECT ... INTO [TEMP] table FROM ...: CREATE TABLE AS under another name.
pub fn select_into(
    cx: &mut dyn BackendContext,
    select: &SelectStmt,
    text: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let mut query = select.clone();
    let into =
        query.into_clause.take().ok_or_else(|| SqlError::internal("SELECT INTO without INTO"))?;
    let rows = create_and_fill(cx, &into, query, text, &mut NestedSink::new(sink))?;
    complete(rows, sink)
}

/// The relation an INTO clause names.
fn into_relation(into: &IntoClause) -> Result<&pg_query::protobuf::RangeVar> {
    into.rel.as_ref().ok_or_else(|| SqlError::internal("INTO without a relation"))
}

/// create_and_fill -- creates the table `into` names with the columns
/// `query` returns, then inserts the rows unless WITH NO DATA; returns how
/// many (`None` without data). `sink` (a nested one) gets the notices.
pub(crate) fn create_and_fill(
    cx: &mut dyn BackendContext,
    into: &IntoClause,
    query: SelectStmt,
    text: &str,
    sink: &mut NestedSink,
) -> Result<Option<u64>> {
    let select = Node { node: Some(NodeEnum::SelectStmt(Box::new(query))) };
    let node = select.node.clone().ok_or_else(|| SqlError::internal("empty query"))?;
    let described = RawStatement { node, location: 0, text: text.to_string() };
    let columns = executor::describe(cx, &described, &mut Vec::new())?.unwrap_or_default();
    let names: Vec<String> = into.col_names.iter().filter_map(node_str).collect();
    if names.len() > columns.len() {
        return Err(SqlError::new("42601", "too many column names were specified"));
    }
    let create = CreateStmt {
        relation: into.rel.clone(),
        table_elts: column_defs(&columns, &names)?,
        options: into.options.clone(),
        oncommit: into.on_commit,
        tablespacename: into.table_space_name.clone(),
        access_method: into.access_method.clone(),
        ..Default::default()
    };
    create_table(cx, &create, sink)?;
    cx.txn()?.increment_command();
    if into.skip_data {
        return Ok(None);
    }
    let insert = InsertStmt {
        relation: into.rel.clone(),
        select_stmt: Some(Box::new(select)),
        ..Default::default()
    };
    let statement = RawStatement {
        node: NodeEnum::InsertStmt(Box::new(insert)),
        location: 0,
        text: text.to_string(),
    };
    executor::run(cx, &statement, &[], sink)?;
    let rows = sink.last_tag().and_then(|t| t.rsplit(' ').next()?.parse::<u64>().ok());
    Ok(Some(rows.unwrap_or(0)))
}

/// The column definitions of a table holding `columns`, renamed by `names`
/// where given.
fn column_defs(columns: &[OutputColumn], names: &[String]) -> Result<Vec<Node>> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let colname = names.get(i).cloned().unwrap_or_else(|| c.name.clone());
            let type_name = parse_type_name(&sluice_types::format_type(c.ty, c.typmod))?;
            let def = ColumnDef {
                colname,
                type_name: Some(type_name),
                is_local: true,
                ..Default::default()
            };
            Ok(Node { node: Some(NodeEnum::ColumnDef(Box::new(def))) })
        })
        .collect()
}
