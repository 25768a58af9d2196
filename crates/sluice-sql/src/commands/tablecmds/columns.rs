//! ALTER TABLE's column subcommands (PostgreSQL's ATExecColumnDefault,
//! ATExecSetNotNull and ATExecDropNotNull in `tablecmds.c`).
//!
//! A column's default is its `pg_attrdef` row (with `atthasdef` on the
//! column); NOT NULL is `pg_attribute.attnotnull`. Both change as new
//! catalog row versions under the statement's AccessExclusive lock. Setting
//! NOT NULL first proves that no row holds a NULL there; dropping it is
//! refused for a primary key column, whose index relies on it.

use crate::catalog::depend::{self, ATTRDEF_CLASS};
use crate::catalog::index::indexes_of;
use crate::catalog::relation::{oid_of, RelationDesc};
use crate::catalog::schema::{PG_ATTRDEF, PG_ATTRIBUTE};
use crate::catalog::{delete, insert, replace, scan};
use crate::commands::indexcmds::require_not_null;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::parser::deparse_expr;
use pg_query::protobuf::Node;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_types::Datum;

/// `pg_attribute` positions changed here.
const ATT_NOTNULL: usize = 6;
const ATT_HASDEF: usize = 7;

/// The attnum of `table`'s column `name`: 42703 if it has none.
fn attnum(table: &RelationDesc, name: &str) -> Result<i16> {
    match table.column_index(name) {
        Some(i) => Ok(i as i16 + 1),
        None => Err(SqlError::new(
            "42703",
            format!("column \"{name}\" of relation \"{}\" does not exist", table.name),
        )),
    }
}

/// set_default -- ALTER COLUMN name SET DEFAULT expr (`raw`) or, without
/// one, DROP DEFAULT. The new default is analysed before the command ends,
/// so an expression that cannot be evaluated for the column fails here
/// rather than at the next INSERT.
pub(crate) fn set_default(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
    raw: Option<&Node>,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    let text = raw.map(deparse_expr).transpose()?;
    remove_default(cx, table, attnum)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    if let Some(text) = &text {
        let oid = engine.new_oid()?;
        let row = [
            Datum::Oid(oid),
            Datum::Oid(table.oid),
            Datum::Int2(attnum),
            Datum::Text(text.clone()),
        ];
        insert(&engine, db, &PG_ATTRDEF, txn, &row)?;
    }
    update_attribute(cx, table, attnum, ATT_HASDEF, text.is_some())?;
    if text.is_some() {
        cx.txn()?.increment_command();
        let engine = cx.engine().clone();
        let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
        let changed = crate::catalog::relation::by_oid(&engine, db, &ctx, table.oid)?
            .ok_or_else(|| SqlError::internal("altered table not found"))?;
        // The text is analysed on its own, so a position in it would
        // point into the wrong statement.
        crate::optimizer::modify::column_defaults(&changed, &mut Vec::new()).map_err(|mut e| {
            e.position = None;
            e
        })?;
    }
    Ok(())
}

/// Deletes column `attnum`'s default and what the default depended on.
fn remove_default(cx: &mut dyn BackendContext, table: &RelationDesc, attnum: i16) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let at = Datum::Int2(attnum);
    let rows = scan(&engine, db, &PG_ATTRDEF, txn, |r| oid_of(&r[1]) == table.oid && r[2] == at)?;
    for (tid, row) in rows {
        let attrdef = oid_of(&row[0]);
        delete(&engine, db, &PG_ATTRDEF, txn, tid)?;
        depend::remove(&engine, db, txn, |d| {
            d.object.classid == ATTRDEF_CLASS && d.object.objid == attrdef
        })?;
    }
    Ok(())
}

/// Sets boolean `pg_attribute` column `field` of column `attnum`.
fn update_attribute(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    attnum: i16,
    field: usize,
    value: bool,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let at = Datum::Int2(attnum);
    let rows = scan(&engine, db, &PG_ATTRIBUTE, txn, |r| oid_of(&r[0]) == table.oid && r[4] == at)?;
    for (tid, mut row) in rows {
        if row[field] != Datum::Bool(value) {
            row[field] = Datum::Bool(value);
            replace(&engine, db, &PG_ATTRIBUTE, txn, tid, &row)?;
        }
    }
    Ok(())
}

/// set_not_null -- ALTER COLUMN name SET NOT NULL (23502 if a row has a NULL).
pub(crate) fn set_not_null(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    if table.columns[attnum as usize - 1].not_null {
        return Ok(());
    }
    require_not_null(cx, table, &[attnum])
}

/// drop_not_null -- ALTER COLUMN name DROP NOT NULL (42P16 for a primary
/// key column).
pub(crate) fn drop_not_null(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let indexes = indexes_of(&engine, db, &ctx, table.oid)?;
    if indexes.iter().any(|i| i.primary && i.keys.contains(&attnum)) {
        return Err(SqlError::new("42P16", format!("column \"{column}\" is in a primary key")));
    }
    update_attribute(cx, table, attnum, ATT_NOTNULL, false)
}
