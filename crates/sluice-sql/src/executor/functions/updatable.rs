//! `pg_relation_is_updatable` and `pg_column_is_updatable` (PostgreSQL's
//! relation_is_updatable in `rewrite/rewriteHandler.c`), which
//! `information_schema` reads to say whether a view can be written to.
//!
//! A table takes INSERT, UPDATE and DELETE. A view takes DELETE when it is
//! automatically updatable (`optimizer/modify/view_target.rs`), and INSERT
//! and UPDATE as well when at least one of the columns asked about is a
//! plain column of its base relation; what its base relation takes, asked
//! about the columns behind those, limits it further. There are no rules
//! or INSTEAD OF triggers, so `include_triggers` changes nothing.

use super::ExecHost;
use crate::catalog::namespace::namespace_oid;
use crate::catalog::relation::{by_oid, lookup_as, RelationDesc};
use crate::catalog::rewrite::view_select;
use crate::catalog::schema::RelKind;
use crate::error::Result;
use crate::optimizer::modify::{not_auto_updatable, updatable_columns};
use pg_query::protobuf::{RangeVar, SelectStmt};
use pg_query::NodeEnum;
use sluice_common::Oid;
use sluice_types::Datum;

/// The events of PostgreSQL's bitmask: `1 << CMD_UPDATE`, `CMD_INSERT`,
/// `CMD_DELETE`.
const UPDATE: i32 = 1 << 2;
const INSERT: i32 = 1 << 3;
const DELETE: i32 = 1 << 4;

/// `pg_relation_is_updatable(regclass, include_triggers)`: `integer`.
pub(super) fn relation_is_updatable(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    Ok(Datum::Int4(events(host, *oid, None, &mut Vec::new())?))
}

/// `pg_column_is_updatable(regclass, attnum, include_triggers)`: whether
/// UPDATE can assign the column.
pub(super) fn column_is_updatable(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let (Some(Datum::Oid(oid)), Some(Datum::Int2(attnum))) = (args.first(), args.get(1)) else {
        return Ok(Datum::Null);
    };
    // System columns cannot be assigned.
    let Ok(column) = usize::try_from(*attnum - 1) else { return Ok(Datum::Bool(false)) };
    let events = events(host, *oid, Some(vec![column]), &mut Vec::new())?;
    Ok(Datum::Bool(events & UPDATE == UPDATE))
}

/// The events relation `oid` takes for `columns` (all when `None`);
/// `outer` holds the views already on the way, against loops.
fn events(
    host: &mut ExecHost,
    oid: Oid,
    columns: Option<Vec<usize>>,
    outer: &mut Vec<Oid>,
) -> Result<i32> {
    let Some(rel) = describe(host, oid)? else { return Ok(0) };
    match rel.kind {
        RelKind::Table => return Ok(INSERT | UPDATE | DELETE),
        RelKind::View if !outer.contains(&oid) => {}
        _ => return Ok(0),
    }
    let query = stored_query(host, &rel)?;
    if not_auto_updatable(&query).is_some() {
        return Ok(0);
    }
    let Some(NodeEnum::RangeVar(base)) = query.from_clause.first().and_then(|n| n.node.as_ref())
    else {
        return Ok(0);
    };
    let Some(base_rel) = base_relation(host, base)? else { return Ok(0) };
    let behind = updatable_columns(&rel, &query, base, &base_rel)?;
    let asked: Vec<usize> = columns.unwrap_or_else(|| (0..behind.len()).collect());
    let base_columns: Vec<usize> =
        asked.iter().filter_map(|&c| behind.get(c).copied().flatten()).collect();
    let mut events = DELETE;
    if !base_columns.is_empty() {
        events |= INSERT | UPDATE;
    }
    outer.push(oid);
    let base_events = events_of_base(host, &base_rel, base_columns, outer)?;
    outer.pop();
    Ok(events & base_events)
}

/// What the base relation of a view takes, for the columns behind the view's.
fn events_of_base(
    host: &mut ExecHost,
    base: &RelationDesc,
    columns: Vec<usize>,
    outer: &mut Vec<Oid>,
) -> Result<i32> {
    if base.kind == RelKind::Table {
        return Ok(INSERT | UPDATE | DELETE);
    }
    events(host, base.oid, Some(columns), outer)
}

/// The relation a view's stored query reads (schema-qualified there).
fn base_relation(host: &mut ExecHost, base: &RangeVar) -> Result<Option<RelationDesc>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let Some(schema) = namespace_oid(&engine, db, host.visibility(), &base.schemaname)? else {
        return Ok(None);
    };
    lookup_as(&engine, db, host.visibility(), &[schema], &base.relname)
}

fn describe(host: &mut ExecHost, oid: Oid) -> Result<Option<RelationDesc>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    by_oid(&engine, db, host.visibility(), oid)
}

/// A view's stored query, parsed.
fn stored_query(host: &mut ExecHost, view: &RelationDesc) -> Result<SelectStmt> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    view_select(&engine, db, host.visibility(), view.oid)
}
