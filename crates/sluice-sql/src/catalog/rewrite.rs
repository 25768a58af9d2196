//! Views' rules in `pg_rewrite` (PostgreSQL's `catalog/pg_rewrite.h` and
//! the lookups of `rewrite/rewriteSupport.c`).
//!
//! A view is a `pg_class` row of kind `v` with no storage and one rule,
//! `_RETURN`, whose `ev_action` holds the view's query. PostgreSQL stores
//! the analyzed query tree (relations by OID); sluice stores SQL text in
//! which every relation is schema-qualified and top-level `*` is spelled
//! out (`commands/view.rs`), so the query means the same whatever the
//! search path of whoever reads the view. The rule depends internally on
//! its view and normally on each relation the query reads (`pg_depend`),
//! which is how DROP finds the views a table or view carries.

use super::depend::{self, DepType, ObjectAddress};
use super::relation::oid_of;
use super::schema::PG_REWRITE;
use super::{insert, scan_eq_as};
use crate::error::{Result, SqlError};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::Transaction;
use sluice_types::Datum;

/// `pg_rewrite.ev_class`'s position.
pub const EV_CLASS: usize = 2;
/// `pg_rewrite.ev_action`'s position.
pub const EV_ACTION: usize = 7;

/// The class of rules (`pg_rewrite`'s OID), for `pg_depend`.
pub const REWRITE_CLASS: Oid = PG_REWRITE.oid;

/// view_query -- the stored query of view `view`, as `ctx` sees it.
pub fn view_query(engine: &Engine, db: Oid, ctx: &VisibilityContext, view: Oid) -> Result<String> {
    view_rule(engine, db, ctx, view)?
        .and_then(|(_, row)| row[EV_ACTION].as_str().map(str::to_string))
        .ok_or_else(|| SqlError::internal(format!("view {view} has no _RETURN rule")))
}

/// view_select -- the stored query of view `view`, parsed.
pub fn view_select(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    view: Oid,
) -> Result<pg_query::protobuf::SelectStmt> {
    let text = view_query(engine, db, ctx, view)?;
    match crate::parser::parse(&text)?.into_iter().next().map(|s| s.node) {
        Some(pg_query::NodeEnum::SelectStmt(select)) => Ok(*select),
        _ => Err(SqlError::internal(format!("view {view} has no query"))),
    }
}

/// view_rule -- the address and row of view `view`'s `_RETURN` rule.
pub fn view_rule(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    view: Oid,
) -> Result<Option<(ItemPointer, Vec<Datum>)>> {
    let rows = scan_eq_as(engine, db, &PG_REWRITE, ctx, EV_CLASS, &Datum::Oid(view), |_| true)?;
    Ok(rows.into_iter().next())
}

/// The `pg_rewrite` row of a view's `_RETURN` rule.
pub fn rule_row(oid: Oid, view: Oid, query: &str) -> Vec<Datum> {
    vec![
        Datum::Oid(oid),
        Datum::Text("_RETURN".into()),
        Datum::Oid(view),
        Datum::Text("1".into()),
        Datum::Text("O".into()),
        Datum::Bool(true),
        Datum::Null,
        Datum::Text(query.into()),
    ]
}

/// add_rule -- stores view `view`'s `_RETURN` rule for `query`, reading
/// `relations`, with its dependencies; returns the rule's OID.
pub fn add_rule(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    view: Oid,
    query: &str,
    relations: &[Oid],
) -> Result<Oid> {
    let oid = engine.new_oid()?;
    insert(engine, db, &PG_REWRITE, txn, &rule_row(oid, view, query))?;
    let rule = ObjectAddress { classid: REWRITE_CLASS, objid: oid, objsubid: 0 };
    let on_view = depend::Dependency {
        object: rule,
        referenced: ObjectAddress::relation(view),
        kind: DepType::Internal,
    };
    depend::record(engine, db, txn, &on_view)?;
    for &rel in relations.iter().filter(|&&r| r != view) {
        let dep = depend::Dependency {
            object: rule,
            referenced: ObjectAddress::relation(rel),
            kind: DepType::Normal,
        };
        depend::record(engine, db, txn, &dep)?;
    }
    Ok(oid)
}

/// dependent_views -- the views whose queries read relation `rel`.
pub fn dependent_views(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    rel: Oid,
) -> Result<Vec<Oid>> {
    let target = ObjectAddress::relation(rel);
    let rules: Vec<Oid> = depend::find(engine, db, txn, |d| {
        d.referenced.classid == target.classid
            && d.referenced.objid == rel
            && d.object.classid == REWRITE_CLASS
            && d.kind == DepType::Normal
    })?
    .into_iter()
    .map(|(_, d)| d.object.objid)
    .collect();
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let mut views = Vec::new();
    for rule in rules {
        let rows = scan_eq_as(engine, db, &PG_REWRITE, &ctx, 0, &Datum::Oid(rule), |_| true)?;
        for (_, row) in rows {
            let view = oid_of(&row[EV_CLASS]);
            if !views.contains(&view) {
                views.push(view);
            }
        }
    }
    views.sort_unstable();
    Ok(views)
}

/// view_relations -- the relations view `view`'s query reads (what its
/// rule depends on), in OID order.
pub fn view_relations(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    view: Oid,
) -> Result<Vec<Oid>> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let Some((_, row)) = view_rule(engine, db, &ctx, view)? else { return Ok(Vec::new()) };
    let rule = oid_of(&row[0]);
    let mut relations: Vec<Oid> = depend::find(engine, db, txn, |d| {
        d.object.classid == REWRITE_CLASS
            && d.object.objid == rule
            && d.kind == DepType::Normal
            && d.referenced.classid == super::depend::RELATION_CLASS
    })?
    .into_iter()
    .map(|(_, d)| d.referenced.objid)
    .collect();
    relations.sort_unstable();
    relations.dedup();
    Ok(relations)
}
