//! ALTER DOMAIN (PostgreSQL's AlterDomainDefault, AlterDomainNotNull,
//! AlterDomainAddConstraint, AlterDomainDropConstraint and
//! AlterDomainValidateConstraint in `commands/typecmds.c`).
//!
//! A constraint added to a domain (CHECK, NOT NULL) must hold for the
//! values already stored in columns of the domain, unless it is added NOT
//! VALID: each such column is checked with an internal query (`spi`) over
//! its table, the values renamed `value` so the CHECK's text over `VALUE`
//! reads them as it is. The domain is locked AccessExclusive (as every
//! ALTER TYPE), and each table ShareLock while it is checked, as
//! PostgreSQL's validateDomainConstraint does, so no row changes beneath
//! the check.

use super::domain::{check_name, cook_check, not_possible};
use super::{dependent_columns, locked_domain};
use crate::catalog::constraint::{
    insert_constraint, ConstraintType, NewConstraint, CON_NAME, CON_TYPID, CON_VALIDATED,
};
use crate::catalog::pg_type::col;
use crate::catalog::relation::oid_of;
use crate::catalog::schema::{PG_CONSTRAINT, PG_TYPE};
use crate::catalog::{delete, replace, scan};
use crate::commands::dependency::relation_name;
use crate::commands::tablecmds::{describe, lock_relation};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::spi;
use crate::parser::{deparse_expr, quote_identifier};
use crate::sink::QuerySink;
use pg_query::protobuf::{AlterDomainStmt, ConstrType};
use pg_query::NodeEnum;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::lmgr::LockMode;
use sluice_types::{Datum, SqlType};

/// ALTER DOMAIN name { SET DEFAULT expr | DROP DEFAULT | SET NOT NULL |
/// DROP NOT NULL | ADD constraint [NOT VALID] | DROP CONSTRAINT [IF
/// EXISTS] name | VALIDATE CONSTRAINT name }.
pub fn alter_domain(
    cx: &mut dyn BackendContext,
    stmt: &AlterDomainStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (oid, name, mut row, tid) = locked_domain(cx, &stmt.type_name)?;
    let (engine, db) = (cx.engine().clone(), cx.database());
    match stmt.subtype.as_str() {
        "T" => {
            row[col::DEFAULT] = match stmt.def.as_deref() {
                Some(raw) => Datum::Text(deparse_expr(raw)?),
                None => Datum::Null,
            };
            replace(&engine, db, &PG_TYPE, cx.txn()?, tid, &row)?;
        }
        "N" | "O" => set_not_null(cx, oid, row, tid, stmt.subtype == "O")?,
        "C" => add_constraint(cx, stmt, oid, &name, row, tid)?,
        "X" => drop_constraint(cx, stmt, oid, &name, sink)?,
        "V" => validate_constraint(cx, &stmt.name, oid, &name)?,
        other => return Err(SqlError::internal(format!("unrecognized ALTER DOMAIN type {other}"))),
    }
    sink.complete("ALTER DOMAIN")
}

/// SET NOT NULL (after checking the stored values) or DROP NOT NULL.
fn set_not_null(
    cx: &mut dyn BackendContext,
    oid: Oid,
    mut row: Vec<Datum>,
    tid: ItemPointer,
    not_null: bool,
) -> Result<()> {
    if not_null {
        validate(cx, oid, "value IS NULL", "contains null values", "23502")?;
    }
    row[col::NOT_NULL] = Datum::Bool(not_null);
    let (engine, db) = (cx.engine().clone(), cx.database());
    replace(&engine, db, &PG_TYPE, cx.txn()?, tid, &row)?;
    Ok(())
}

/// ADD [CONSTRAINT name] CHECK (expr) [NOT VALID] (or NOT NULL, as SET NOT NULL).
fn add_constraint(
    cx: &mut dyn BackendContext,
    stmt: &AlterDomainStmt,
    oid: Oid,
    name: &str,
    row: Vec<Datum>,
    tid: ItemPointer,
) -> Result<()> {
    let Some(NodeEnum::Constraint(c)) = stmt.def.as_deref().and_then(|d| d.node.as_ref()) else {
        return Err(SqlError::internal("ALTER DOMAIN ADD without a constraint"));
    };
    match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
        ConstrType::ConstrCheck => {}
        ConstrType::ConstrNotnull => return set_not_null(cx, oid, row, tid, true),
        ConstrType::ConstrUnique => return Err(not_possible("unique constraints")),
        ConstrType::ConstrPrimary => return Err(not_possible("primary key constraints")),
        ConstrType::ConstrForeign => return Err(not_possible("foreign key constraints")),
        _ => return Err(SqlError::unsupported("this ALTER DOMAIN ADD form is not supported yet")),
    }
    let base = domain_base(cx, &row)?;
    let types = cx.type_catalog()?;
    let text = cook_check(c, base.0, base.1, &types)?;
    let conname = check_name(cx, name, row_namespace(&row), c, &[])?;
    if !c.skip_validation {
        let test = format!("NOT ({text})");
        validate(cx, oid, &test, "contains values that violate the new constraint", "23514")?;
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    let new = NewConstraint {
        name: &conname,
        kind: ConstraintType::Check,
        table: 0,
        namespace: row_namespace(&row),
        domain: oid,
        index: 0,
        validated: !c.skip_validation,
        deferrable: false,
        deferred: false,
        keys: &[],
        expr: Some(&text),
        references: None,
    };
    insert_constraint(&engine, db, cx.txn()?, &new)?;
    Ok(())
}

/// DROP CONSTRAINT [IF EXISTS] name.
fn drop_constraint(
    cx: &mut dyn BackendContext,
    stmt: &AlterDomainStmt,
    oid: Oid,
    name: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rows = domain_constraint(cx, oid, &stmt.name)?;
    if rows.is_empty() {
        let message = format!("constraint \"{}\" of domain \"{name}\" does not exist", stmt.name);
        if stmt.missing_ok {
            return sink.notice(&SqlError::new("00000", format!("{message}, skipping")));
        }
        return Err(SqlError::new("42704", message));
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    for (tid, _) in rows {
        delete(&engine, db, &PG_CONSTRAINT, cx.txn()?, tid)?;
    }
    Ok(())
}

/// VALIDATE CONSTRAINT name: checks the stored values, then marks it valid.
fn validate_constraint(
    cx: &mut dyn BackendContext,
    conname: &str,
    oid: Oid,
    name: &str,
) -> Result<()> {
    let Some((tid, mut row)) = domain_constraint(cx, oid, conname)?.into_iter().next() else {
        return Err(SqlError::new(
            "42704",
            format!("constraint \"{conname}\" of domain \"{name}\" does not exist"),
        ));
    };
    let text = row[crate::catalog::constraint::CON_BIN].as_str().unwrap_or_default().to_string();
    let test = format!("NOT ({text})");
    validate(cx, oid, &test, "contains values that violate the new constraint", "23514")?;
    row[CON_VALIDATED] = Datum::Bool(true);
    let (engine, db) = (cx.engine().clone(), cx.database());
    replace(&engine, db, &PG_CONSTRAINT, cx.txn()?, tid, &row)?;
    Ok(())
}

/// The `pg_constraint` rows of domain `oid` named `conname`.
fn domain_constraint(
    cx: &mut dyn BackendContext,
    oid: Oid,
    conname: &str,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    scan(&engine, db, &PG_CONSTRAINT, cx.txn()?, |r| {
        oid_of(&r[CON_TYPID]) == oid && r[CON_NAME].as_str() == Some(conname)
    })
}

/// validate -- fails with `code` and `column "c" of table "t" <complaint>`
/// if some stored value of domain `oid` meets `test` (SQL over `value`).
fn validate(
    cx: &mut dyn BackendContext,
    oid: Oid,
    test: &str,
    complaint: &str,
    code: &'static str,
) -> Result<()> {
    for (table, column) in dependent_columns(cx, &[oid])? {
        lock_relation(cx, table, LockMode::Share)?;
        let rel = describe(cx, table)?.id();
        let schema = cx.namespace_name(rel.namespace)?;
        let sql = format!(
            "SELECT 1 FROM (SELECT {} AS value FROM {}.{}) AS v WHERE {test}",
            quote_identifier(&column),
            quote_identifier(&schema),
            quote_identifier(&rel.name)
        );
        let found = spi::execute(&mut cx.parts()?, &sql, Vec::new(), &[], Some(1))?;
        if !found.rows.is_empty() {
            let table = relation_name(cx, &rel)?;
            return Err(SqlError::new(
                code,
                format!("column \"{column}\" of table \"{table}\" {complaint}"),
            ));
        }
    }
    Ok(())
}

/// The domain's base type and typmod, from its `pg_type` row.
fn domain_base(cx: &mut dyn BackendContext, row: &[Datum]) -> Result<(SqlType, i32)> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = sluice_access::heap::visibility::VisibilityContext::for_transaction(
        cx.txn()?,
        engine.txns(),
    );
    let base = crate::catalog::pg_type::sql_type(&engine, db, &ctx, oid_of(&row[col::BASE_TYPE]))?
        .ok_or_else(|| SqlError::internal("domain without a base type"))?;
    let typmod = match row[col::TYPMOD] {
        Datum::Int4(m) => m,
        _ => -1,
    };
    Ok((base.base(), typmod))
}

fn row_namespace(row: &[Datum]) -> Oid {
    oid_of(&row[col::NAMESPACE])
}
