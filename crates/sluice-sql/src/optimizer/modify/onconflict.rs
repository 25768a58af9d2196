//! Planning INSERT ... ON CONFLICT (PostgreSQL's `transformOnConflictClause`
//! and `infer_arbiter_indexes`); the speculative insertion that runs it is
//! in `executor/onconflict.rs`.
//!
//! # Arbiters
//!
//! The conflict target names the unique indexes that decide what a
//! conflict is, the *arbiters*: a list of columns (with an optional WHERE
//! that a partial index's predicate must match) picks every valid unique
//! index keyed on exactly those columns; `ON CONSTRAINT name` picks that
//! constraint's index; no target (DO NOTHING only) makes every unique index
//! an arbiter. A target no index matches is 42P10.
//!
//! # DO UPDATE
//!
//! The SET list and the WHERE are analysed over the existing row followed
//! by the proposed one (`EXCLUDED`).

use super::update_targets;
use crate::catalog::index::{indexes_of, IndexDesc};
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::RelationDesc;
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::expr::{analyze, check_boolean, relation_scope, Expr, Scope};
use crate::optimizer::context::PlannerContext;
use crate::optimizer::indxpath::predicate_text;
use crate::optimizer::planhost::PlanHost;
use pg_query::protobuf::{InferClause, Node, OnConflictAction, OnConflictClause};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::Oid;
use sluice_types::SqlType;

/// An analysed ON CONFLICT clause.
#[derive(Debug)]
pub struct OnConflict {
    /// The arbiter indexes; empty means every unique index.
    pub(crate) arbiters: Vec<Oid>,
    /// What a conflict leads to.
    pub(crate) action: ConflictAction,
}

/// What a conflict leads to.
#[derive(Debug)]
pub(crate) enum ConflictAction {
    /// DO NOTHING: the proposed row is dropped.
    Nothing,
    /// DO UPDATE SET ... [WHERE ...], both over the existing row followed
    /// by the proposed one.
    Update { targets: Vec<(usize, Expr)>, qual: Option<Expr> },
}

/// plan -- analyses `clause` for an INSERT into `rel` (named `alias` in
/// the statement).
pub(crate) fn plan(
    parts: &mut dyn PlannerContext,
    rel: &RelationDesc,
    alias: &str,
    clause: &OnConflictClause,
    param_types: &mut Vec<Option<SqlType>>,
    types: &TypeCatalog,
) -> Result<OnConflict> {
    let update = clause.action == OnConflictAction::OnconflictUpdate as i32;
    let arbiters = match clause.infer.as_deref() {
        Some(infer) => infer_arbiters(parts, rel, infer, param_types, types)?,
        None if update => {
            return Err(SqlError::syntax(
                "ON CONFLICT DO UPDATE requires inference specification or constraint name",
            )
            .with_hint("For example, ON CONFLICT (column_name).")
            .at(position(clause.location)))
        }
        None => Vec::new(),
    };
    let action = if update {
        let scope = conflict_scope(rel, alias);
        let mut host = PlanHost::new(param_types).with_types(types.clone());
        let targets = update_targets(rel, &clause.target_list, &scope, &mut host, types)?;
        let qual = clause
            .where_clause
            .as_deref()
            .map(|w| analyze(w, &scope, &mut host).and_then(|e| check_boolean(e, "WHERE")))
            .transpose()?;
        ConflictAction::Update { targets, qual }
    } else {
        ConflictAction::Nothing
    };
    Ok(OnConflict { arbiters, action })
}

/// infer_arbiters -- the indexes the conflict target names (see the
/// module doc).
fn infer_arbiters(
    parts: &mut dyn PlannerContext,
    rel: &RelationDesc,
    infer: &InferClause,
    param_types: &mut Vec<Option<SqlType>>,
    types: &TypeCatalog,
) -> Result<Vec<Oid>> {
    let parts = parts.planner_parts();
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let indexes = indexes_of(parts.engine, parts.database, &ctx, rel.oid)?;
    if !infer.conname.is_empty() {
        return constraint_index(rel, &indexes, &infer.conname);
    }
    let Some(columns) = inference_columns(rel, &infer.index_elems)? else {
        return Err(no_arbiter());
    };
    let predicate = match infer.where_clause.as_deref() {
        Some(node) => {
            let scope = relation_scope(rel, &rel.name);
            analyze(node, &scope, &mut PlanHost::new(param_types).with_types(types.clone()))
                .and_then(|e| check_boolean(e, "WHERE"))?;
            Some(predicate_text(rel, node, types)?)
        }
        None => None,
    };
    let arbiters: Vec<Oid> = indexes
        .iter()
        .filter(|i| i.unique && i.valid && same_columns(i, &columns))
        .filter(|i| predicate_implied(i, predicate.as_deref()))
        .map(|i| i.oid)
        .collect();
    if arbiters.is_empty() {
        return Err(no_arbiter());
    }
    Ok(arbiters)
}

fn no_arbiter() -> SqlError {
    SqlError::new(
        "42P10",
        "there is no unique or exclusion constraint matching the ON CONFLICT specification",
    )
}

/// The index of constraint `name` on `rel` (sluice's PRIMARY KEY and UNIQUE
/// constraints are named after their index, as PostgreSQL's are).
fn constraint_index(rel: &RelationDesc, indexes: &[IndexDesc], name: &str) -> Result<Vec<Oid>> {
    match indexes.iter().find(|i| i.unique && i.name == name) {
        Some(index) => Ok(vec![index.oid]),
        None => Err(SqlError::new(
            "42704",
            format!("constraint \"{name}\" for table \"{}\" does not exist", rel.name),
        )),
    }
}

/// The 1-based column numbers of the inference list, or `None` when it
/// holds an expression (sluice has no expression indexes, so nothing can
/// match it).
fn inference_columns(rel: &RelationDesc, elems: &[Node]) -> Result<Option<Vec<i16>>> {
    let mut columns = Vec::new();
    for node in elems {
        let Some(NodeEnum::IndexElem(elem)) = node.node.as_ref() else {
            return Err(SqlError::internal("unexpected node in ON CONFLICT target"));
        };
        if !elem.collation.is_empty() || !elem.opclass.is_empty() {
            return Err(SqlError::unsupported(
                "ON CONFLICT targets with a collation or operator class are not supported yet",
            ));
        }
        if elem.expr.is_some() {
            return Ok(None);
        }
        let index = rel.column_index(&elem.name).ok_or_else(|| {
            SqlError::new("42703", format!("column \"{}\" does not exist", elem.name))
        })?;
        columns.push(index as i16 + 1);
    }
    Ok(Some(columns))
}

/// Whether `index` keys on exactly the set `columns` (order does not
/// matter, as in PostgreSQL).
fn same_columns(index: &IndexDesc, columns: &[i16]) -> bool {
    let mut keys = index.keys.clone();
    let mut wanted = columns.to_vec();
    keys.sort_unstable();
    keys.dedup();
    wanted.sort_unstable();
    wanted.dedup();
    keys == wanted
}

/// Whether the inference WHERE (`given`, deparsed as index predicates are
/// stored) implies `index`'s predicate: a non-partial index is implied by
/// anything; a partial one needs the same predicate, alone or as one of
/// the conjuncts of an AND (PostgreSQL proves implication in general; the
/// forms applications write are these).
fn predicate_implied(index: &IndexDesc, given: Option<&str>) -> bool {
    let Some(needed) = index.predicate.as_deref() else { return true };
    let Some(given) = given else { return false };
    given == needed
        || given
            .split(" AND ")
            .any(|conjunct| conjunct.trim_matches(['(', ')']) == needed.trim_matches(['(', ')']))
}

/// The scope an ON CONFLICT clause's expressions see: the target table,
/// then the proposed row as `excluded`.
fn conflict_scope(rel: &RelationDesc, alias: &str) -> Scope {
    let mut scope = relation_scope(rel, alias);
    scope.columns.extend(relation_scope(rel, "excluded").columns);
    scope
}
