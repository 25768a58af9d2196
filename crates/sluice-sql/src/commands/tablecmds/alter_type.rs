//! ALTER TABLE ... ALTER [COLUMN] name [SET DATA] TYPE type [USING expr]
//! (PostgreSQL's ATPrepAlterColumnType and ATExecAlterColumnType in
//! `tablecmds.c`).
//!
//! The column's values are converted by the USING expression, read over
//! the row as it was, or else by the assignment cast from the old type
//! (42804 with PostgreSQL's HINT when there is none); its default must
//! convert the same way. The column's `pg_attribute` row takes the new
//! type, its statistics go, and the table is rewritten (`rewrite.rs`): each
//! row converted, its indexes rebuilt and its constraints checked on the
//! way. An identity column's sequence takes the new type too, as ALTER
//! SEQUENCE ... AS would set it.
//!
//! Refused: a column a generated column reads (0A000, as PostgreSQL), a
//! column of a foreign key (0A000: sluice does not re-check the key's
//! types yet), and a change that would leave a view over the table
//! returning another type (0A000, PostgreSQL's "used by a view or rule";
//! PostgreSQL refuses any column a view reads, sluice only those whose
//! change reaches a view's columns).
//!
//! PostgreSQL skips the rewrite when the old values are valid as they are
//! (`varchar(10)` to `varchar(20)`, `varchar` to `text`); sluice always
//! rewrites, which costs time, not correctness.

use super::columns::{attnum, cook_default, update_attribute};
use super::rewrite::rewrite_table;
use super::RelationDesc;
use crate::catalog::bootstrap::attribute_row;
use crate::catalog::relation::{oid_of, ATT_HASMISSING, ATT_MISSINGVAL};
use crate::catalog::schema::PG_STATISTIC;
use crate::catalog::{delete, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::expr::{analyze, coerce, eval, relation_scope, CoercionContext, Expr};
use crate::optimizer::planhost::PlanHost;
use pg_query::protobuf::{AlterTableCmd, ColumnDef};
use pg_query::NodeEnum;
use sluice_types::{format_type, Datum, SqlType};

/// `pg_attribute` positions of the type: `atttypid`, `attlen`,
/// `atttypmod`, `attcollation`, `attstorage`.
const TYPE_FIELDS: [usize; 5] = [2, 3, 5, 11, 12];

/// alter_column_type -- ALTER COLUMN name TYPE type [USING expr].
pub(crate) fn alter_column_type(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    cmd: &AlterTableCmd,
) -> Result<()> {
    let Some(NodeEnum::ColumnDef(def)) = cmd.def.as_deref().and_then(|d| d.node.as_ref()) else {
        return Err(SqlError::internal("ALTER COLUMN TYPE without a type"));
    };
    let attnum = attnum(table, &cmd.name)?;
    let index = attnum as usize - 1;
    refuse_dependents(table, index)?;
    let types = cx.type_catalog()?;
    let (ty, typmod) = new_type(def, &types)?;
    let convert = conversion(table, index, def, (ty, typmod), &types)?;
    let column = &table.columns[index];
    if let Some(default) = &column.default {
        cook_default(default, ty, typmod, &types).map_err(|_| {
            SqlError::new(
                "42804",
                format!(
                    "default for column \"{}\" cannot be cast automatically to type {}",
                    column.name,
                    format_type(ty, typmod)
                ),
            )
        })?;
    }
    let fresh = attribute_row(table.oid, &column.name, ty, typmod, attnum, false, false);
    update_attribute(cx, table, attnum, |row| {
        for field in TYPE_FIELDS {
            row[field] = fresh[field].clone();
        }
        row[ATT_HASMISSING] = Datum::Bool(false);
        row[ATT_MISSINGVAL] = Datum::Null;
    })?;
    remove_statistics(cx, table, attnum)?;
    crate::commands::view::refuse_retyped_views(cx, table, &column.name)?;
    if column.identity.is_some() {
        for seq in super::columns::column_sequences(cx, table, attnum)? {
            crate::commands::sequence::set_sequence_type(cx, &seq, ty)?;
        }
    }
    rewrite_table(cx, table, &mut |mut row, host| {
        row[index] = eval(&convert, &row, host)?;
        Ok(row)
    })
}

/// The type ALTER COLUMN names, resolved as CREATE TABLE resolves one.
fn new_type(
    def: &ColumnDef,
    types: &crate::catalog::pg_type::TypeCatalog,
) -> Result<(SqlType, i32)> {
    if def.coll_clause.is_some() {
        return Err(SqlError::unsupported(
            "ALTER COLUMN ... TYPE ... COLLATE is not supported yet",
        ));
    }
    let type_name = def
        .type_name
        .as_ref()
        .ok_or_else(|| SqlError::internal("ALTER COLUMN TYPE without a type"))?;
    // PostgreSQL points at nothing when the type is unknown here.
    crate::expr::type_from_name_in(type_name, &mut |schema, name| types.by_name(schema, name))
        .map_err(super::rewrite::unplaced)
}

/// The expression converting column `index` of a row of `table` to the
/// new type: USING's, or the column itself, by assignment cast.
fn conversion(
    table: &RelationDesc,
    index: usize,
    def: &ColumnDef,
    (ty, typmod): (SqlType, i32),
    types: &crate::catalog::pg_type::TypeCatalog,
) -> Result<Expr> {
    let column = &table.columns[index];
    let target = format_type(ty, typmod);
    let Some(using) = def.raw_default.as_deref() else {
        let value = Expr::column(index, column.ty, column.typmod);
        return coerce(value, ty, typmod, CoercionContext::Assignment).map_err(|_| {
            SqlError::new(
                "42804",
                format!("column \"{}\" cannot be cast automatically to type {target}", column.name),
            )
            .with_hint(format!("You might need to specify \"USING {}::{target}\".", column.name))
        });
    };
    let scope = relation_scope(table, &table.name);
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
    host.agg_clause = Some("transform expressions");
    host.sublink_clause = Some("transform expression");
    let value = analyze(using, &scope, &mut host)?;
    if !params.is_empty() {
        return Err(SqlError::new("42P02", "there is no parameter $1"));
    }
    coerce(value, ty, typmod, CoercionContext::Assignment).map_err(|_| {
        SqlError::new(
            "42804",
            format!(
                "result of USING clause for column \"{}\" cannot be cast automatically to type {target}",
                column.name
            ),
        )
        .with_hint("You might need to add an explicit cast.")
    })
}

/// 0A000 for a column whose type other parts of the table rely on.
fn refuse_dependents(table: &RelationDesc, index: usize) -> Result<()> {
    let column = &table.columns[index];
    for other in &table.columns {
        let Some(expr) = &other.generated else { continue };
        if other.name != column.name && reads_column(expr, &column.name) {
            return Err(SqlError::unsupported(
                "cannot alter type of a column used by a generated column",
            )
            .with_detail(format!(
                "Column \"{}\" is used by generated column \"{}\".",
                column.name, other.name
            )));
        }
    }
    let attnum = index as i16 + 1;
    if table.foreign_keys.involve(table.oid, attnum) {
        return Err(SqlError::unsupported(format!(
            "altering the type of column \"{}\", which a foreign key uses, is not supported yet",
            column.name
        )));
    }
    Ok(())
}

/// Whether stored expression `text` names column `column`.
fn reads_column(text: &str, column: &str) -> bool {
    let Ok(node) = crate::parser::parse_expr(text, "generation expression") else { return true };
    let Some(inner) = node.node.as_ref() else { return false };
    inner.nodes().iter().any(|(n, ..)| match n {
        pg_query::NodeRef::ColumnRef(c) => {
            c.fields.last().and_then(crate::parser::node_str).as_deref() == Some(column)
        }
        _ => false,
    })
}

/// Deletes the statistics of column `attnum`, which describe the old values.
fn remove_statistics(cx: &mut dyn BackendContext, table: &RelationDesc, attnum: i16) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let txn = cx.txn()?;
    let at = Datum::Int2(attnum);
    for (tid, _) in
        scan(&engine, db, &PG_STATISTIC, txn, |r| oid_of(&r[0]) == table.oid && r[1] == at)?
    {
        delete(&engine, db, &PG_STATISTIC, txn, tid)?;
    }
    Ok(())
}
