//! What views do when what they read changes (the view part of
//! PostgreSQL's `catalog/dependency.c`, and what its OID-based query trees
//! get for free): a DROP of a relation views read fails or cascades to them;
//! renaming or moving a relation and renaming a column rewrite the views'
//! stored queries; dropping a column a view needs fails or cascades. After
//! a rewrite every view must still plan to its columns (0A000 if not), so a
//! change the text rewriting cannot follow is refused rather than leaving a
//! view that reads something else.
//!
//! Dependents are found through `pg_depend` (the views' rules depend on the
//! relations they read) and reported as reportDependentObjects reports
//! them: depth first, each with what it depends on, named as
//! getObjectDescription names relations.

use super::{describe_query, refname};
use crate::catalog::relation::{find_by_oid, RelationDesc, RelationId};
use crate::catalog::rewrite;
use crate::catalog::schema::{RelKind, PG_REWRITE};
use crate::commands::dependency::{dependents_error, relation_name, report_cascade};
use crate::commands::tablecmds::{lock_if_still_there, remove_relation, see_committed_catalogs};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::parser::{node_str, quote_identifier};
use crate::sink::QuerySink;
use pg_query::{NodeEnum, NodeRef};
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// drop_dependent_views -- before relation `rel` (a `kind`) is dropped:
/// the views reading it, and the views reading those, make the drop fail
/// (2BP01) unless `cascade`, which drops them first with PostgreSQL's
/// NOTICE.
pub(crate) fn drop_dependent_views(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    kind: &str,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    see_committed_catalogs(cx)?;
    let me = format!("{kind} {}", relation_name(cx, rel)?);
    let mut views = Vec::new();
    views_on(cx, rel.oid, &me, &mut views)?;
    if views.is_empty() {
        return Ok(());
    }
    if !cascade {
        let lines: Vec<String> =
            views.iter().map(|v| format!("{} depends on {}", v.description, v.parent)).collect();
        return Err(dependents_error(&me, &lines));
    }
    report_cascade(&descriptions(&views), sink)?;
    for view in views.iter().rev() {
        if lock_if_still_there(cx, view.rel.oid, LockMode::AccessExclusive)? {
            remove_view(cx, &view.rel)?;
        }
    }
    Ok(())
}

/// "view" or "materialized view", as messages name `rel`.
fn view_kind(rel: &RelationId) -> &'static str {
    match rel.kind {
        RelKind::MatView => "materialized view",
        _ => "view",
    }
}

/// Removes a dependent view; a materialized view takes its indexes along.
fn remove_view(cx: &mut dyn BackendContext, view: &RelationId) -> Result<()> {
    if view.kind == RelKind::MatView {
        crate::commands::indexcmds::drop_table_indexes(cx, view.oid)?;
    }
    remove_relation(cx, view)
}

/// How the cascade NOTICE names `views`.
fn descriptions(views: &[DependentView]) -> Vec<String> {
    views.iter().map(|v| v.description.clone()).collect()
}

/// A view a DROP takes along, and what it depends on, as the report
/// names them.
struct DependentView {
    rel: RelationId,
    description: String,
    parent: String,
}

/// views_on -- appends the views that read `rel` (described as `me`) to
/// `found`, each followed by the views on it, as PostgreSQL's
/// reportDependentObjects lists them; each view once.
fn views_on(
    cx: &mut dyn BackendContext,
    rel: Oid,
    me: &str,
    found: &mut Vec<DependentView>,
) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    for view in rewrite::dependent_views(&engine, db, cx.txn()?, rel)? {
        if found.iter().any(|v| v.rel.oid == view) {
            continue;
        }
        let Some(v) = find_by_oid(&engine, db, cx.txn()?, view)? else { continue };
        let description = format!("{} {}", view_kind(&v), relation_name(cx, &v)?);
        found.push(DependentView {
            rel: v,
            description: description.clone(),
            parent: me.to_string(),
        });
        views_on(cx, view, &description, found)?;
    }
    Ok(())
}

/// rename_in_views -- relation `rel` is about to be called
/// `new_schema.new_name`: the views reading it name it so in their stored
/// queries from now on (PostgreSQL's views hold its OID and need nothing).
pub(crate) fn rename_in_views(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    new_schema: &str,
    new_name: &str,
) -> Result<()> {
    let old_schema = cx.namespace_name(rel.namespace)?;
    let spelled = format!("{}.{}", quote_identifier(new_schema), quote_identifier(new_name));
    edit_view_queries(cx, rel.oid, |node, text| {
        let mut edits = Vec::new();
        for (n, ..) in node.nodes() {
            let NodeRef::RangeVar(rv) = n else { continue };
            if rv.schemaname == old_schema && rv.relname == rel.name {
                let at = usize::try_from(rv.location).unwrap_or(0);
                // Without an alias the table went by its old name, which
                // column references may use (`t.a`): it keeps that name.
                let keep = if rv.alias.is_none() && new_name != rel.name {
                    format!("{spelled} {}", quote_identifier(&rel.name))
                } else {
                    spelled.clone()
                };
                edits.push((at, at + qualified_name_len(&text[at..]), keep));
            }
        }
        edits
    })
}

/// rename_column_in_views -- column `old` of table `table` is now `new`:
/// the views reading the table say so where their queries name it (bare,
/// or qualified by one of the table's names in the query). A view whose
/// query then no longer returns the same columns is 0A000.
pub(crate) fn rename_column_in_views(
    cx: &mut dyn BackendContext,
    table: &RelationId,
    old: &str,
    new: &str,
) -> Result<()> {
    let schema = cx.namespace_name(table.namespace)?;
    let spelled = quote_identifier(new);
    edit_view_queries(cx, table.oid, |node, text| {
        let nodes = node.nodes();
        let refnames: Vec<&str> = nodes
            .iter()
            .filter_map(|(n, ..)| match n {
                NodeRef::RangeVar(rv) if rv.schemaname == schema && rv.relname == table.name => {
                    Some(refname(rv))
                }
                _ => None,
            })
            .collect();
        let mut edits = Vec::new();
        for (n, ..) in &nodes {
            let NodeRef::ColumnRef(cref) = n else { continue };
            let fields: Vec<String> = cref.fields.iter().filter_map(node_str).collect();
            if fields.len() != cref.fields.len() {
                continue;
            }
            let at = usize::try_from(cref.location).unwrap_or(0);
            match fields.as_slice() {
                [column] if column == old => {
                    edits.push((at, at + identifier_len(&text[at..]), spelled.clone()));
                }
                [qualifier, column] if column == old && refnames.contains(&qualifier.as_str()) => {
                    let start = at + identifier_len(&text[at..]) + 1;
                    edits.push((start, start + identifier_len(&text[start..]), spelled.clone()));
                }
                _ => {}
            }
        }
        edits
    })
}

/// edit_view_queries -- applies the edits `edit` finds (byte ranges of a
/// view's stored query and their replacements) to every view reading
/// `rel`, and checks that each still returns its columns (0A000 if not).
fn edit_view_queries(
    cx: &mut dyn BackendContext,
    rel: Oid,
    edit: impl Fn(&NodeEnum, &str) -> Vec<(usize, usize, String)>,
) -> Result<()> {
    see_committed_catalogs(cx)?;
    let (engine, db) = (cx.engine().clone(), cx.database());
    for view in rewrite::dependent_views(&engine, db, cx.txn()?, rel)? {
        if !lock_if_still_there(cx, view, LockMode::AccessExclusive)? {
            continue;
        }
        let ctx = sluice_access::heap::visibility::VisibilityContext::for_transaction(
            cx.txn()?,
            engine.txns(),
        );
        let Some((tid, mut row)) = rewrite::view_rule(&engine, db, &ctx, view)? else { continue };
        let text = row[rewrite::EV_ACTION].as_str().unwrap_or_default().to_string();
        let statement = crate::parser::parse(&text)?.into_iter().next();
        let Some(statement) = statement else { continue };
        let mut edits = edit(&statement.node, &text);
        if edits.is_empty() {
            continue;
        }
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut edited = text.clone();
        for (start, end, replacement) in edits {
            edited.replace_range(start..end, &replacement);
        }
        row[rewrite::EV_ACTION] = Datum::Text(edited);
        crate::catalog::replace(&engine, db, &PG_REWRITE, cx.txn()?, tid, &row)?;
    }
    cx.txn()?.increment_command();
    let Some((view, error)) = broken_view(cx, rel)? else { return Ok(()) };
    Err(SqlError::unsupported(format!(
        "the change would leave view \"{}\" reading other columns; changing it is not supported yet",
        view.name
    ))
    .with_detail(format!("Reading the view would fail: {}", error.message)))
}

/// refuse_retyped_views -- 0A000 when the new type of column `column` of
/// `table` reaches the columns of a view over it (PostgreSQL's "used by a
/// view or rule", which it says of any view reading the column).
pub(crate) fn refuse_retyped_views(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
) -> Result<()> {
    let Some((view, _)) = broken_view(cx, table.oid)? else { return Ok(()) };
    Err(SqlError::unsupported("cannot alter type of a column used by a view or rule")
        .with_detail(format!("rule _RETURN on view {} depends on column \"{column}\"", view.name)))
}

/// broken_view -- the first view reading `rel` that no longer plans to its
/// columns, with the error planning it gives; None if all do.
fn broken_view(cx: &mut dyn BackendContext, rel: Oid) -> Result<Option<(RelationId, SqlError)>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    for view in rewrite::dependent_views(&engine, db, cx.txn()?, rel)? {
        let Some(found) = find_by_oid(&engine, db, cx.txn()?, view)? else { continue };
        let schema = cx.namespace_name(found.namespace)?;
        // A materialized view is read from its heap: its query is what
        // must still plan (its column types are checked at REFRESH).
        let text = match found.kind {
            RelKind::MatView => {
                let ctx = sluice_access::heap::visibility::VisibilityContext::for_transaction(
                    cx.txn()?,
                    engine.txns(),
                );
                rewrite::view_query(&engine, db, &ctx, found.oid)?
            }
            _ => format!(
                "SELECT FROM {}.{}",
                quote_identifier(&schema),
                quote_identifier(&found.name)
            ),
        };
        let statement = crate::parser::parse(&text)?
            .into_iter()
            .next()
            .ok_or_else(|| SqlError::internal("empty statement"))?;
        if let Err(error) = describe_query(cx, &statement) {
            return Ok(Some((found, error)));
        }
    }
    Ok(None)
}

/// views_without_column -- column `column` of `table` was just dropped:
/// a view whose query needed it makes the drop fail (2BP01, as PostgreSQL
/// reports a view's dependency on a column) unless `cascade`, which drops
/// the view and the views on it.
pub(crate) fn views_without_column(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    see_committed_catalogs(cx)?;
    let me = format!("column {column} of table {}", relation_name(cx, &table.id())?);
    loop {
        let Some((view, _)) = broken_view(cx, table.oid)? else { return Ok(()) };
        let first = format!("{} {}", view_kind(&view), relation_name(cx, &view)?);
        let mut found = vec![DependentView {
            rel: view.clone(),
            description: first.clone(),
            parent: me.clone(),
        }];
        views_on(cx, view.oid, &first, &mut found)?;
        if !cascade {
            let lines: Vec<String> = found
                .iter()
                .map(|v| format!("{} depends on {}", v.description, v.parent))
                .collect();
            return Err(dependents_error(&me, &lines));
        }
        report_cascade(&descriptions(&found), sink)?;
        for dependent in found.iter().rev() {
            if lock_if_still_there(cx, dependent.rel.oid, LockMode::AccessExclusive)? {
                remove_view(cx, &dependent.rel)?;
            }
        }
    }
}

/// The length of the identifier `text` starts with (quoted or not).
fn identifier_len(text: &str) -> usize {
    if text.starts_with('"') {
        return crate::parser::quoted_len(text, b'"');
    }
    text.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).unwrap_or(text.len())
}

/// The length of the `schema.name` (or `name`) `text` starts with.
fn qualified_name_len(text: &str) -> usize {
    let first = identifier_len(text);
    match text[first..].strip_prefix('.') {
        Some(rest) => first + 1 + identifier_len(rest),
        None => first,
    }
}
