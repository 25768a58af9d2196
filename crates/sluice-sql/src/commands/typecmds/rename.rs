//! ALTER TYPE | DOMAIN name RENAME TO new_name (PostgreSQL's RenameType):
//! the type's `pg_type` row takes the new name and its array type's row
//! `_new_name`. Stored values and columns refer to the type by OID, so
//! nothing else changes.

use super::{find_type, statement_type, TypeRow};
use crate::catalog::pg_type::col;
use crate::catalog::relation::oid_of;
use crate::catalog::schema::PG_TYPE;
use crate::catalog::{replace, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::lock_relation_name;
use crate::sink::QuerySink;
use pg_query::protobuf::{ObjectType, RenameStmt};
use sluice_types::Datum;

/// rename_type -- ALTER TYPE/DOMAIN ... RENAME TO (42704 if there is no
/// such type, 42809 for ALTER DOMAIN of a type that is not one, 42710 if
/// the schema has a type of the new name).
pub fn rename_type(
    cx: &mut dyn BackendContext,
    stmt: &RenameStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let domain = ObjectType::try_from(stmt.rename_type) == Ok(ObjectType::ObjectDomain);
    let ty = statement_type(cx, stmt.object.as_deref(), domain)?;
    let namespace = cx.namespace_name(ty.namespace())?;
    lock_relation_name(&mut cx.parts()?, ty.namespace(), &stmt.newname)?;
    if find_type(cx, Some(&namespace), &stmt.newname)?.is_some() {
        return Err(SqlError::new("42710", format!("type \"{}\" already exists", stmt.newname)));
    }
    rename_rows(cx, ty, &stmt.newname)?;
    sink.complete(if domain { "ALTER DOMAIN" } else { "ALTER TYPE" })
}

/// Writes the new names into the type's row and its array type's.
fn rename_rows(cx: &mut dyn BackendContext, ty: TypeRow, new_name: &str) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let array = ty.array_oid();
    let txn = cx.txn()?;
    for (tid, mut row) in scan(&engine, db, &PG_TYPE, txn, |r| oid_of(&r[0]) == array)? {
        row[col::NAME] = Datum::Text(format!("_{new_name}"));
        replace(&engine, db, &PG_TYPE, txn, tid, &row)?;
    }
    let mut row = ty.values;
    row[col::NAME] = Datum::Text(new_name.to_string());
    replace(&engine, db, &PG_TYPE, txn, ty.tid, &row).map(|_| ())
}
