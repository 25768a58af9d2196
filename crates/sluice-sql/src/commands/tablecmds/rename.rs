//! ALTER TABLE / INDEX / SEQUENCE ... RENAME (PostgreSQL's RenameRelation,
//! renameatt and RenameConstraint in `tablecmds.c`).
//!
//! A relation's name is its `pg_class.relname`; a column's its
//! `pg_attribute.attname`. Both change as a new catalog row version under
//! the command's lock — AccessExclusive, except for an index, which
//! PostgreSQL renames under ShareUpdateExclusive so queries using it go on.
//!
//! sluice keeps expressions in the catalogs as SQL text over column names
//! (CHECK constraints' `conbin`, partial indexes' `indpred`), where
//! PostgreSQL keeps node trees over column numbers. Renaming a column
//! therefore rewrites each such text: it is analysed over the old names
//! and deparsed with the new ones, so it means what it meant before.

use super::constraints::rename_constraint;
use super::describe;
use crate::catalog::constraint::{constraints_of, CON_BIN, CON_TYPE};
use crate::catalog::depend::{self, ObjectAddress, ATTRDEF_CLASS};
use crate::catalog::index::indexes_of;
use crate::catalog::namespace;
use crate::catalog::relation::{oid_of, RelationId};
use crate::catalog::schema::{RelKind, PG_ATTRDEF, PG_ATTRIBUTE, PG_CONSTRAINT, PG_INDEX};
use crate::catalog::{replace, scan};
use crate::commands::sequence::serial_default;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::expr::deparse;
use crate::optimizer::constraint::{stored_check, stored_generation};
use crate::optimizer::indxpath::analyze_predicate;
use crate::sink::QuerySink;
use pg_query::protobuf::{ObjectType, RenameStmt};
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// `pg_index.indpred`'s position.
const IND_PRED: usize = 20;

/// RENAME of a relation, a column or a constraint.
pub fn rename(
    cx: &mut dyn BackendContext,
    stmt: &RenameStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rename_type = ObjectType::try_from(stmt.rename_type).ok();
    if rename_type == Some(ObjectType::ObjectSchema) {
        return crate::commands::schemacmds::rename_schema(cx, &stmt.subname, &stmt.newname, sink);
    }
    if let Some(ObjectType::ObjectType | ObjectType::ObjectDomain) = rename_type {
        return crate::commands::typecmds::rename_type(cx, stmt, sink);
    }
    let target_type = match rename_type {
        Some(ObjectType::ObjectColumn) => ObjectType::try_from(stmt.relation_type).ok(),
        Some(ObjectType::ObjectTabconstraint) => Some(ObjectType::ObjectTable),
        other => other,
    };
    let tag = match target_type {
        Some(ObjectType::ObjectTable) => "ALTER TABLE",
        Some(ObjectType::ObjectIndex) => "ALTER INDEX",
        Some(ObjectType::ObjectSequence) => "ALTER SEQUENCE",
        Some(ObjectType::ObjectView) => "ALTER VIEW",
        Some(ObjectType::ObjectMatview) => "ALTER MATERIALIZED VIEW",
        _ => return Err(SqlError::unsupported("this RENAME form is not supported yet")),
    };
    let rv = stmt.relation.as_ref().ok_or_else(|| SqlError::internal("RENAME without relation"))?;
    let Some(rel) = cx.find_relation(rv)? else {
        if stmt.missing_ok {
            let message = format!("relation \"{}\" does not exist, skipping", rv.relname);
            sink.notice(&SqlError::new("00000", message))?;
            return sink.complete(tag);
        }
        return Err(crate::catalog::namespace::missing_relation(&namespace::written_name(rv)));
    };
    check_kind(&rel, target_type)?;
    let mode = match rel.kind {
        RelKind::Index => LockMode::ShareUpdateExclusive,
        _ => LockMode::AccessExclusive,
    };
    let rel = super::lock_for_ddl(cx, rv, mode)?
        .ok_or_else(|| crate::catalog::namespace::missing_relation(&rv.relname))?;
    match rename_type {
        Some(ObjectType::ObjectColumn) => {
            rename_column(cx, &rel, &stmt.subname, &stmt.newname)?;
            super::touch_class_row(cx, rel.oid)?;
            cx.txn()?.increment_command();
            crate::commands::view::rename_column_in_views(cx, &rel, &stmt.subname, &stmt.newname)?;
        }
        Some(ObjectType::ObjectTabconstraint) => {
            let table = describe(cx, rel.oid)?;
            rename_constraint(cx, &table, &stmt.subname, &stmt.newname)?;
            super::touch_class_row(cx, rel.oid)?;
        }
        _ => {
            rename_relation(cx, &rel, &stmt.newname)?;
            cx.txn()?.increment_command();
            let schema = cx.namespace_name(rel.namespace)?;
            crate::commands::view::rename_in_views(cx, &rel, &schema, &stmt.newname)?;
        }
    }
    sink.complete(tag)
}

/// 42809 when ALTER SEQUENCE names something other than a sequence; ALTER
/// TABLE and (for RENAME) ALTER INDEX take any relation, as PostgreSQL's do.
fn check_kind(rel: &RelationId, target: Option<ObjectType>) -> Result<()> {
    match target {
        Some(ObjectType::ObjectSequence) if rel.kind != RelKind::Sequence => {
            Err(SqlError::new("42809", format!("\"{}\" is not a sequence", rel.name)))
        }
        Some(ObjectType::ObjectView) if rel.kind != RelKind::View => {
            Err(SqlError::new("42809", format!("\"{}\" is not a view", rel.name)))
        }
        Some(ObjectType::ObjectMatview) if rel.kind != RelKind::MatView => {
            Err(SqlError::new("42809", format!("\"{}\" is not a materialized view", rel.name)))
        }
        _ => Ok(()),
    }
}

/// RENAME TO: 42P07 if the schema has a relation of that name.
fn rename_relation(cx: &mut dyn BackendContext, rel: &RelationId, new: &str) -> Result<()> {
    if super::super::sequence::relation_exists(cx, rel.namespace, new)? {
        return Err(SqlError::new("42P07", format!("relation \"{new}\" already exists")));
    }
    if rel.kind == RelKind::Sequence {
        rename_in_defaults(cx, rel, rel.namespace, new)?;
    }
    rename_relation_row(cx, rel.oid, new)
}

/// Rewrites the column defaults that call nextval on sequence `rel` for
/// its new name. Defaults name their sequence in text, where PostgreSQL's
/// regclass constants hold its OID; a serial column's default has the one
/// spelling `nextval('name'::regclass)`, which is rewritten. Any other
/// default using the sequence is refused (0A000) rather than left naming a
/// sequence that no longer exists.
pub(super) fn rename_in_defaults(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    new_namespace: Oid,
    new: &str,
) -> Result<()> {
    let (old_schema, new_schema) =
        (cx.namespace_name(rel.namespace)?, cx.namespace_name(new_namespace)?);
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let me = ObjectAddress::relation(rel.oid);
    let users: Vec<Oid> = depend::find(&engine, db, txn, |d| {
        d.referenced == me && d.object.classid == ATTRDEF_CLASS
    })?
    .into_iter()
    .map(|(_, d)| d.object.objid)
    .collect();
    let old_text = serial_default(&old_schema, &rel.name);
    let new_text = serial_default(&new_schema, new);
    for (tid, mut row) in scan(&engine, db, &PG_ATTRDEF, txn, |r| users.contains(&oid_of(&r[0])))? {
        if row[3].as_str() != Some(old_text.as_str()) {
            return Err(SqlError::unsupported(format!(
                "renaming sequence \"{}\", which the column default {} uses, is not supported yet",
                rel.name,
                row[3].as_str().unwrap_or_default()
            )));
        }
        row[3] = Datum::Text(new_text.clone());
        replace(&engine, db, &PG_ATTRDEF, txn, tid, &row)?;
    }
    Ok(())
}

/// rename_relation_row -- sets relation `oid`'s `pg_class.relname`.
pub(crate) fn rename_relation_row(cx: &mut dyn BackendContext, oid: Oid, new: &str) -> Result<()> {
    super::update_class_row(cx, oid, |row| row[1] = Datum::Text(new.into()))
}

/// RENAME COLUMN old TO new, rewriting the stored expressions that name it.
fn rename_column(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    old: &str,
    new: &str,
) -> Result<()> {
    let table = describe(cx, rel.oid)?;
    let types = cx.type_catalog()?;
    if super::SYSTEM_COLUMNS.contains(&old) {
        return Err(SqlError::unsupported(format!("cannot rename system column \"{old}\"")));
    }
    super::check_column_name(new)?;
    let Some(index) = table.column_index(old) else {
        return Err(SqlError::new("42703", format!("column \"{old}\" does not exist")));
    };
    if table.column_index(new).is_some() {
        return Err(SqlError::new(
            "42701",
            format!("column \"{new}\" of relation \"{}\" already exists", table.name),
        ));
    }
    let mut names: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    names[index] = new.to_string();
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let attnum = Datum::Int2(index as i16 + 1);
    let attrs =
        scan(&engine, db, &PG_ATTRIBUTE, txn, |r| oid_of(&r[0]) == rel.oid && r[4] == attnum)?;
    for (tid, mut row) in attrs {
        row[1] = Datum::Text(new.into());
        replace(&engine, db, &PG_ATTRIBUTE, txn, tid, &row)?;
    }
    for (tid, mut row) in constraints_of(&engine, db, txn, rel.oid)? {
        if row[CON_TYPE].as_str() != Some("c") {
            continue;
        }
        let Some(text) = row[CON_BIN].as_str() else { continue };
        let expr = stored_check(&table, text, &types)?;
        row[CON_BIN] = Datum::Text(deparse::expr(&expr, &names));
        replace(&engine, db, &PG_CONSTRAINT, txn, tid, &row)?;
    }
    rename_in_generation(&engine, db, txn, &table, &names, &types)?;
    let ctx =
        sluice_access::heap::visibility::VisibilityContext::for_transaction(txn, engine.txns());
    let predicates: Vec<Oid> = indexes_of(&engine, db, &ctx, table.oid)?
        .into_iter()
        .filter(|i| i.predicate.is_some())
        .map(|i| i.oid)
        .collect();
    for index in predicates {
        let rows = scan(&engine, db, &PG_INDEX, txn, |r| oid_of(&r[0]) == index)?;
        for (tid, mut row) in rows {
            let Some(text) = row[IND_PRED].as_str() else { continue };
            let expr = analyze_predicate(&table, text, &types)?;
            row[IND_PRED] = Datum::Text(deparse::expr(&expr, &names));
            replace(&engine, db, &PG_INDEX, txn, tid, &row)?;
        }
    }
    txn.increment_command();
    Ok(())
}

/// Rewrites the generation expressions of `table` over the columns' new
/// `names` (they name columns in text, as CHECK constraints do).
fn rename_in_generation(
    engine: &sluice_access::Engine,
    db: Oid,
    txn: &mut sluice_txn::Transaction,
    table: &crate::catalog::relation::RelationDesc,
    names: &[String],
    types: &crate::catalog::pg_type::TypeCatalog,
) -> Result<()> {
    let generated: Vec<Datum> = (0..table.columns.len())
        .filter(|&i| table.columns[i].generated.is_some())
        .map(|i| Datum::Int2(i as i16 + 1))
        .collect();
    let attrdefs = scan(engine, db, &PG_ATTRDEF, txn, |r| {
        oid_of(&r[1]) == table.oid && generated.contains(&r[2])
    })?;
    for (tid, mut row) in attrdefs {
        let Some(text) = row[3].as_str() else { continue };
        let expr = stored_generation(table, text, types)?;
        row[3] = Datum::Text(deparse::expr(&expr, names));
        replace(engine, db, &PG_ATTRDEF, txn, tid, &row)?;
    }
    Ok(())
}
