//! `CREATE TABLE t (LIKE source [INCLUDING ... | EXCLUDING ...], ...)`
//! (PostgreSQL's `transformTableLikeClause` and
//! `expandTableLikeClause`).
//!
//! A LIKE clause stands for the source table's columns at its place in the
//! column list: their names, types and NOT NULL markings always, their
//! defaults with `INCLUDING DEFAULTS`, its CHECK constraints (names kept)
//! with `INCLUDING CONSTRAINTS`, and with `INCLUDING INDEXES` a copy of
//! every index (the primary key stays a primary key; the copies are named
//! by the rule for new indexes, so `h1_pkey` becomes `h2_pkey`). The source's
//! storage parameters are never copied, as in PostgreSQL.
//!
//! The copy is taken once, under the statement's snapshot and an ACCESS
//! SHARE lock on the source held to the end of the transaction, so the
//! source cannot change shape while the new table is made from it.
//! `INCLUDING GENERATED` copies generation expressions. Comments,
//! statistics objects, compression and storage are options sluice accepts
//! and has nothing to copy for; INCLUDING
//! IDENTITY of a source with identity columns is refused (0A000).

use super::NewColumn;
use crate::catalog::constraint::CheckConstraint;
use crate::catalog::index::indexes_of;
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::RelationDesc;
use crate::catalog::schema::RelKind;
use crate::commands::indexcmds::{kind_plural, ConstraintKind, NewIndex};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use pg_query::protobuf::{ConstrType, Constraint, TableLikeClause};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_txn::lmgr::LockMode;

/// `CREATE_TABLE_LIKE_CONSTRAINTS` in the clause's option bits.
const LIKE_CONSTRAINTS: u32 = 1 << 2;
/// `CREATE_TABLE_LIKE_DEFAULTS`.
const LIKE_DEFAULTS: u32 = 1 << 3;
/// `CREATE_TABLE_LIKE_GENERATED`.
const LIKE_GENERATED: u32 = 1 << 4;
/// `CREATE_TABLE_LIKE_IDENTITY`.
const LIKE_IDENTITY: u32 = 1 << 5;
/// `CREATE_TABLE_LIKE_INDEXES`.
const LIKE_INDEXES: u32 = 1 << 6;

/// What one LIKE clause contributes to the new table.
pub(super) struct LikeCopy {
    /// The source's columns, in order.
    pub columns: Vec<NewColumn>,
    /// Copies of the source's indexes (`INCLUDING INDEXES`).
    pub indexes: Vec<NewIndex>,
    /// The source's CHECK constraints (`INCLUDING CONSTRAINTS`).
    pub checks: Vec<Constraint>,
}

/// expand -- the columns and indexes `clause` copies from its source.
pub(super) fn expand(cx: &mut dyn BackendContext, clause: &TableLikeClause) -> Result<LikeCopy> {
    let rv = clause
        .relation
        .as_ref()
        .ok_or_else(|| SqlError::internal("LIKE clause without a relation"))?;
    let source = cx
        .lookup_relation(rv)?
        .ok_or_else(|| missing_relation(&rv.relname).at(position(rv.location)))?;
    if source.kind != RelKind::Table {
        return Err(SqlError::new(
            "42809",
            format!("relation \"{}\" is invalid in LIKE clause", source.name),
        )
        .at(position(rv.location))
        .with_detail(format!(
            "This operation is not supported for {}.",
            kind_plural(source.kind)
        )));
    }
    super::lock_relation(cx, source.oid, LockMode::AccessShare)?;
    if clause.options & LIKE_IDENTITY != 0 && source.columns.iter().any(|c| c.identity.is_some()) {
        return Err(SqlError::unsupported("LIKE ... INCLUDING IDENTITY is not supported yet"));
    }
    let columns = copy_columns(
        &source,
        clause.options & LIKE_DEFAULTS != 0,
        clause.options & LIKE_GENERATED != 0,
    );
    let indexes =
        if clause.options & LIKE_INDEXES != 0 { copy_indexes(cx, &source)? } else { Vec::new() };
    let checks = match clause.options & LIKE_CONSTRAINTS {
        0 => Vec::new(),
        _ => source.checks.iter().map(copy_check).collect::<Result<_>>()?,
    };
    Ok(LikeCopy { columns, indexes, checks })
}

/// A stored CHECK constraint as the constraint node that would create it
/// again: its text names columns, which the new table has by the same names.
fn copy_check(check: &CheckConstraint) -> Result<Constraint> {
    let parsed = crate::parser::parse(&format!("SELECT 1 WHERE {}", check.expr))?;
    let Some(NodeEnum::SelectStmt(select)) = parsed.into_iter().next().map(|s| s.node) else {
        return Err(SqlError::internal("invalid check constraint text"));
    };
    Ok(Constraint {
        contype: ConstrType::ConstrCheck as i32,
        conname: check.name.clone(),
        raw_expr: select.where_clause,
        is_enforced: true,
        initially_valid: true,
        ..Default::default()
    })
}

/// The source's columns: name, type, NOT NULL, and the default and the
/// generation expression if asked for (without, a generated column is
/// copied as a plain one, as in PostgreSQL).
fn copy_columns(
    source: &RelationDesc,
    with_defaults: bool,
    with_generated: bool,
) -> Vec<NewColumn> {
    source
        .columns
        .iter()
        .filter(|c| !c.dropped)
        .map(|c| NewColumn {
            name: c.name.clone(),
            ty: c.ty,
            typmod: c.typmod,
            not_null: c.not_null,
            // An identity column's default is its sequence's, not copied.
            default: c.default.clone().filter(|_| with_defaults && c.identity.is_none()),
            serial: false,
            constraints: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            identity: None,
            generated: c.generated.clone().filter(|_| with_generated),
        })
        .collect()
}

/// A copy of each valid index of `source`, named anew.
fn copy_indexes(cx: &mut dyn BackendContext, source: &RelationDesc) -> Result<Vec<NewIndex>> {
    let engine = cx.engine().clone();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    indexes_of(&engine, cx.database(), &ctx, source.oid)?
        .iter()
        .filter(|index| index.valid)
        .map(|index| {
            let constraint = index.primary.then_some(ConstraintKind::Primary);
            NewIndex::copy_of(index, source, None, constraint)
        })
        .collect()
}
