//! CREATE [OR REPLACE] VIEW and DROP VIEW, and what other DROPs do about
//! views (PostgreSQL's `commands/view.c`, `rewrite/rewriteDefine.c` and the
//! view part of `catalog/dependency.c`).
//!
//! # What is stored
//!
//! A view is a `pg_class` row of kind `v` without storage, its columns in
//! `pg_attribute` (names, types and typmods of the query's result, renamed
//! by the column list), and a `_RETURN` rule in `pg_rewrite` whose
//! `ev_action` is the query as SQL text. PostgreSQL stores the analyzed
//! query tree, whose relations are OIDs and whose `*` was expanded when the
//! view was made; sluice gets the same meaning into text before storing
//! it: every relation the query names is schema-qualified (so the search
//! path of a later reader does not matter) and each `*` of the top-level
//! select list over plain tables is spelled out as the columns it stood
//! for (so a column added later to the table does not appear in the view).
//! A `*` over a subquery or function stays; should its expansion change,
//! the view fails to read (the column count or a type no longer matches)
//! rather than return other columns. The text is the edited statement
//! parsed again and deparsed by libpg_query.
//!
//! Reading a view plans its stored query as a subquery in FROM
//! (`optimizer/select.rs`), as PostgreSQL's rewriter substitutes it.
//!
//! # Dependencies and locking
//!
//! The rule depends internally on the view and normally on every relation
//! the query reads; what DROP, RENAME, SET SCHEMA and DROP COLUMN of such
//! a relation do to its views is in `view/dependents.rs`. The view is
//! created and dropped under AccessExclusive; the relations it reads are
//! locked AccessShare while the query is planned.

mod dependents;
mod options;

pub(crate) use dependents::{
    drop_dependent_views, refuse_retyped_views, rename_column_in_views, rename_in_views,
    views_without_column,
};

use super::sequence::{range_var, relation_exists};
use super::tablecmds::{lock_for_ddl, lock_relation, remove_relation};
use crate::catalog::bootstrap::{attribute_row, ClassRow, FrozenBounds};
use crate::catalog::namespace::written_name;
use crate::catalog::relation::RelationId;
use crate::catalog::rewrite::{self, add_rule};
use crate::catalog::schema::{RelKind, PG_ATTRIBUTE, PG_CLASS, PG_REWRITE};
use crate::catalog::{delete, insert};
use crate::error::{Result, SqlError};
use crate::executor;
use crate::executor::context::BackendContext;
use crate::optimizer::select::refname;
use crate::parser::{node_str, quote_identifier, RawStatement};
use crate::sink::{OutputColumn, QuerySink};
use pg_query::protobuf::{DropBehavior, DropStmt, SelectStmt, ViewStmt};
use pg_query::{NodeEnum, NodeRef};
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// CREATE [OR REPLACE] VIEW name [(columns)] AS query.
pub fn create_view(
    cx: &mut dyn BackendContext,
    stmt: &ViewStmt,
    text: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv = stmt.view.as_ref().ok_or_else(|| SqlError::internal("CREATE VIEW without a name"))?;
    refuse_temporary(rv)?;
    let Some(NodeEnum::SelectStmt(query)) = stmt.query.as_deref().and_then(|q| q.node.as_ref())
    else {
        return Err(SqlError::internal("CREATE VIEW without a query"));
    };
    let namespace = cx.creation_namespace(rv)?;
    let options = options::view_options(stmt, query)?;
    let columns = view_columns(cx, query, text, stmt)?;
    let (stored, relations) = stored_query(cx, query, text)?;
    let definition = ViewDefinition { columns, stored, relations, options };
    crate::executor::lmgr::lock_relation_name(&mut cx.parts()?, namespace, &rv.relname)?;
    let existing = if relation_exists(cx, namespace, &rv.relname)? {
        let in_schema = pg_query::protobuf::RangeVar {
            schemaname: cx.namespace_name(namespace)?,
            ..rv.clone()
        };
        lock_for_ddl(cx, &in_schema, LockMode::AccessExclusive)?
    } else {
        None
    };
    match existing {
        Some(old) if stmt.replace => replace_view(cx, &old, &definition)?,
        Some(_) => {
            return Err(SqlError::new(
                "42P07",
                format!("relation \"{}\" already exists", rv.relname),
            ))
        }
        None => define_view(cx, &rv.relname, namespace, &definition)?,
    }
    sink.complete("CREATE VIEW")
}

/// 0A000 for a temporary view, which sluice does not make yet.
fn refuse_temporary(rv: &pg_query::protobuf::RangeVar) -> Result<()> {
    if rv.relpersistence == "t" {
        return Err(SqlError::unsupported("temporary views are not supported yet"));
    }
    Ok(())
}

/// stored_query -- the text a view keeps for `query` (see the module doc)
/// and the relations it reads. `text` is the statement `query` was parsed
/// from; its locations point into it.
pub(crate) fn stored_query(
    cx: &mut dyn BackendContext,
    query: &SelectStmt,
    text: &str,
) -> Result<(String, Vec<Oid>)> {
    let node = NodeEnum::SelectStmt(Box::new(query.clone()));
    let ctes: Vec<String> = node
        .nodes()
        .into_iter()
        .filter_map(|(n, ..)| match n {
            NodeRef::CommonTableExpr(cte) => Some(cte.ctename.clone()),
            _ => None,
        })
        .collect();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut relations = Vec::new();
    let mut tables = Vec::new();
    for (n, ..) in node.nodes() {
        let NodeRef::RangeVar(rv) = n else { continue };
        if rv.schemaname.is_empty() && ctes.contains(&rv.relname) {
            continue;
        }
        let Some(rel) = cx.find_relation(rv)? else { continue };
        if rv.schemaname.is_empty() {
            let schema = cx.namespace_name(rel.namespace)?;
            let at = usize::try_from(rv.location).unwrap_or(0);
            edits.push((at, at, format!("{}.", quote_identifier(&schema))));
        }
        relations.push(rel.oid);
        tables.push((rv.clone(), rel));
    }
    edits.extend(star_expansions(cx, query, text, &tables)?);
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut edited = text.to_string();
    for (start, end, replacement) in edits {
        if end <= edited.len() && edited.is_char_boundary(start) && edited.is_char_boundary(end) {
            edited.replace_range(start..end, &replacement);
        }
    }
    relations.sort_unstable();
    relations.dedup();
    Ok((deparse_view_query(&edited)?, relations))
}

/// The edits that spell out each `*` of the top-level select list whose
/// FROM items are all plain tables (`*`) or that names one (`t.*`).
fn star_expansions(
    cx: &mut dyn BackendContext,
    query: &SelectStmt,
    text: &str,
    tables: &[(pg_query::protobuf::RangeVar, RelationId)],
) -> Result<Vec<(usize, usize, String)>> {
    let from: Vec<&pg_query::protobuf::RangeVar> = query
        .from_clause
        .iter()
        .filter_map(|n| match n.node.as_ref() {
            Some(NodeEnum::RangeVar(rv)) => Some(rv),
            _ => None,
        })
        .collect();
    let all_plain = from.len() == query.from_clause.len();
    let mut edits = Vec::new();
    for target in &query.target_list {
        let Some(NodeEnum::ResTarget(res)) = target.node.as_ref() else { continue };
        let Some(NodeEnum::ColumnRef(cref)) = res.val.as_deref().and_then(|v| v.node.as_ref())
        else {
            continue;
        };
        let is_star =
            matches!(cref.fields.last().and_then(|f| f.node.as_ref()), Some(NodeEnum::AStar(_)));
        if !is_star {
            continue;
        }
        let qualifier: Vec<String> =
            cref.fields[..cref.fields.len() - 1].iter().filter_map(node_str).collect();
        let expanded: Vec<&pg_query::protobuf::RangeVar> = match qualifier.as_slice() {
            [] if all_plain => from.clone(),
            [name] => from.iter().copied().filter(|rv| refname(rv) == name).collect(),
            _ => continue,
        };
        if expanded.is_empty() {
            continue;
        }
        let mut columns = Vec::new();
        for rv in expanded {
            let Some((_, rel)) = tables.iter().find(|(t, _)| t.location == rv.location) else {
                return Ok(Vec::new());
            };
            let desc = crate::commands::tablecmds::describe(cx, rel.oid)?;
            let prefix = quote_identifier(refname(rv));
            columns.extend(
                desc.live_columns()
                    .map(|i| format!("{prefix}.{}", quote_identifier(&desc.columns[i].name))),
            );
        }
        let start = usize::try_from(cref.location).unwrap_or(0);
        let Some(star) = text.get(start..).and_then(|t| t.find('*')) else { continue };
        edits.push((start, start + star + 1, columns.join(", ")));
    }
    Ok(edits)
}

/// The query of the edited CREATE [MATERIALIZED] VIEW statement, deparsed.
fn deparse_view_query(edited: &str) -> Result<String> {
    let parsed = pg_query::parse(edited, pg_query::ParserOptions::default())
        .map_err(|e| SqlError::internal(format!("view query no longer parses: {e}")))?;
    let stmt = parsed.protobuf.stmts.into_iter().next().and_then(|s| s.stmt?.node);
    let query = match stmt {
        Some(NodeEnum::ViewStmt(view)) => view.query,
        Some(NodeEnum::CreateTableAsStmt(matview)) => matview.query,
        _ => return Err(SqlError::internal("edited CREATE VIEW is no longer one")),
    };
    let query = query.and_then(|q| q.node).ok_or_else(|| SqlError::internal("no query"))?;
    query
        .deparse(pg_query::DeparseOptions::default())
        .map_err(|e| SqlError::internal(format!("cannot deparse view query: {e}")))
}

/// The view's columns: the query's result (errors point into `text`, the
/// statement), renamed by the column list (42601 if it is longer), each
/// name once (42701).
fn view_columns(
    cx: &mut dyn BackendContext,
    query: &SelectStmt,
    text: &str,
    stmt: &ViewStmt,
) -> Result<Vec<OutputColumn>> {
    let statement = RawStatement {
        node: NodeEnum::SelectStmt(Box::new(query.clone())),
        location: 0,
        text: text.to_string(),
    };
    let mut columns = describe_query(cx, &statement)?;
    let names: Vec<String> = stmt.aliases.iter().filter_map(node_str).collect();
    if names.len() > columns.len() {
        return Err(SqlError::new("42601", "CREATE VIEW specifies more column names than columns"));
    }
    for (column, name) in columns.iter_mut().zip(names) {
        column.name = name;
    }
    for (i, column) in columns.iter().enumerate() {
        if columns[..i].iter().any(|c| c.name == column.name) {
            return Err(SqlError::new(
                "42701",
                format!("column \"{}\" specified more than once", column.name),
            ));
        }
    }
    Ok(columns)
}

/// The result columns of `statement`, planned but not run.
fn describe_query(
    cx: &mut dyn BackendContext,
    statement: &RawStatement,
) -> Result<Vec<OutputColumn>> {
    executor::describe(cx, statement, &mut Vec::new())?
        .ok_or_else(|| SqlError::internal("view query returns no rows"))
}

/// What CREATE VIEW makes a view of.
struct ViewDefinition {
    /// Its columns.
    columns: Vec<OutputColumn>,
    /// The query text its rule keeps.
    stored: String,
    /// The relations the query reads.
    relations: Vec<Oid>,
    /// Its `reloptions` (`{check_option=local}`).
    options: Option<String>,
}

/// Creates view `name` in `namespace`.
fn define_view(
    cx: &mut dyn BackendContext,
    name: &str,
    namespace: Oid,
    definition: &ViewDefinition,
) -> Result<()> {
    let ViewDefinition { columns, stored, relations, options } = definition;
    let (engine, db) = (cx.engine().clone(), cx.database());
    let oid = engine.new_oid()?;
    lock_relation(cx, oid, LockMode::AccessExclusive)?;
    let class = ClassRow {
        oid,
        name,
        namespace,
        relfilenode: 0,
        tablespace: sluice_common::DEFAULTTABLESPACE_OID,
        shared: false,
        kind: RelKind::View,
        natts: columns.len() as i16,
        options: options.clone(),
        frozen: FrozenBounds::default(),
    };
    insert(&engine, db, &PG_CLASS, cx.txn()?, &class.values())?;
    for (i, column) in columns.iter().enumerate() {
        let row = view_attribute(oid, column, i);
        insert(&engine, db, &PG_ATTRIBUTE, cx.txn()?, &row)?;
    }
    add_rule(&engine, db, cx.txn()?, oid, stored, relations)?;
    cx.txn()?.increment_command();
    Ok(())
}

/// The `pg_attribute` row of a view column.
fn view_attribute(view: Oid, column: &OutputColumn, index: usize) -> Vec<Datum> {
    attribute_row(view, &column.name, column.ty, column.typmod, index as i16 + 1, false, false)
}

/// CREATE OR REPLACE VIEW of an existing view: the new query must return
/// the old columns (names and types) first; it may add columns after them
/// (PostgreSQL's checkViewColumns).
fn replace_view(
    cx: &mut dyn BackendContext,
    old: &RelationId,
    definition: &ViewDefinition,
) -> Result<()> {
    let ViewDefinition { columns, stored, relations, options } = definition;
    if old.kind != RelKind::View {
        return Err(SqlError::new("42809", format!("\"{}\" is not a view", old.name)));
    }
    lock_relation(cx, old.oid, LockMode::AccessExclusive)?;
    let desc = crate::commands::tablecmds::describe(cx, old.oid)?;
    let current: Vec<_> = desc.live_columns().map(|i| &desc.columns[i]).collect();
    if columns.len() < current.len() {
        return Err(SqlError::new("42P16", "cannot drop columns from view"));
    }
    for (old_col, new_col) in current.iter().zip(columns) {
        if old_col.name != new_col.name {
            return Err(SqlError::new(
                "42P16",
                format!(
                    "cannot change name of view column \"{}\" to \"{}\"",
                    old_col.name, new_col.name
                ),
            )
            .with_hint(
                "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.",
            ));
        }
        if old_col.ty != new_col.ty || old_col.typmod != new_col.typmod {
            return Err(SqlError::new(
                "42P16",
                format!(
                    "cannot change data type of view column \"{}\" from {} to {}",
                    old_col.name,
                    sluice_types::format_type(old_col.ty, old_col.typmod),
                    sluice_types::format_type(new_col.ty, new_col.typmod)
                ),
            ));
        }
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    for (i, column) in columns.iter().enumerate().skip(current.len()) {
        insert(&engine, db, &PG_ATTRIBUTE, cx.txn()?, &view_attribute(old.oid, column, i))?;
    }
    drop_rule(cx, old.oid)?;
    add_rule(&engine, db, cx.txn()?, old.oid, stored, relations)?;
    let natts = columns.len() as i16;
    let options = crate::catalog::relation::reloptions_datum(options.as_deref());
    let reloptions = PG_CLASS.columns.iter().position(|c| c.0 == "reloptions");
    let reloptions = reloptions.ok_or_else(|| SqlError::internal("pg_class has no reloptions"))?;
    crate::commands::tablecmds::update_class_row(cx, old.oid, |row| {
        row[15] = Datum::Int2(natts);
        row[reloptions] = options;
    })?;
    cx.txn()?.increment_command();
    Ok(())
}

/// Removes view `view`'s rule and the rule's dependencies.
pub(crate) fn drop_rule(cx: &mut dyn BackendContext, view: Oid) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = sluice_access::heap::visibility::VisibilityContext::for_transaction(
        cx.txn()?,
        engine.txns(),
    );
    let Some((tid, row)) = rewrite::view_rule(&engine, db, &ctx, view)? else { return Ok(()) };
    let rule = crate::catalog::relation::oid_of(&row[0]);
    delete(&engine, db, &PG_REWRITE, cx.txn()?, tid)?;
    crate::catalog::depend::remove(&engine, db, cx.txn()?, |d| {
        d.object.classid == rewrite::REWRITE_CLASS && d.object.objid == rule
    })?;
    cx.txn()?.increment_command();
    Ok(())
}

/// DROP VIEW [IF EXISTS] name, ... [CASCADE | RESTRICT].
pub fn drop_views(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let cascade = stmt.behavior == DropBehavior::DropCascade as i32;
    for object in &stmt.objects {
        let Some(NodeEnum::List(list)) = object.node.as_ref() else { continue };
        let names: Vec<String> = list.items.iter().filter_map(node_str).collect();
        let rv = range_var(&names)?;
        let Some(rel) = lock_for_ddl(cx, &rv, LockMode::AccessExclusive)? else {
            let name = written_name(&rv);
            if stmt.missing_ok {
                let message = format!("view \"{name}\" does not exist, skipping");
                sink.notice(&SqlError::new("00000", message))?;
                continue;
            }
            return Err(SqlError::new("42P01", format!("view \"{name}\" does not exist")));
        };
        if rel.kind != RelKind::View {
            return Err(SqlError::new("42809", format!("\"{}\" is not a view", rel.name))
                .with_hint(super::tablecmds::drop_hint(rel.kind)));
        }
        drop_dependent_views(cx, &rel, "view", cascade, sink)?;
        remove_relation(cx, &rel)?;
    }
    sink.complete("DROP VIEW")
}
