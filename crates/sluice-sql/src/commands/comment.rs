//! COMMENT ON (PostgreSQL's `commands/comment.c`): a description for a
//! table, index, sequence, column or table constraint, kept in
//! `pg_description` (`catalog/comment.rs`); and for a schema.
//!
//! The object is looked up and its relation locked ShareUpdateExclusive,
//! as PostgreSQL's get_object_address does for COMMENT: concurrent reads and
//! writes go on, other DDL on the relation waits. Other kinds of object
//! (databases, functions, ...) are refused with 0A000 until they
//! exist in sluice's catalogs.

use crate::catalog::comment::set_comment;
use crate::catalog::constraint::{constraints_of, CON_NAME};
use crate::catalog::depend::ObjectAddress;
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::{oid_of, RelationId};
use crate::catalog::schema::{RelKind, PG_CONSTRAINT, PG_NAMESPACE};
use crate::commands::sequence::range_var;
use crate::commands::tablecmds::lock_relation;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::lock_object;
use crate::parser::node_str;
use crate::sink::QuerySink;
use pg_query::protobuf::{CommentStmt, ObjectType};
use pg_query::NodeEnum;
use sluice_txn::lmgr::LockMode;

/// COMMENT ON kind name IS 'text' | NULL.
pub fn comment(
    cx: &mut dyn BackendContext,
    stmt: &CommentStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let names = object_names(stmt);
    let object = match ObjectType::try_from(stmt.objtype) {
        Ok(ObjectType::ObjectTable) => relation_object(cx, &names, RelKind::Table, "a table")?,
        Ok(ObjectType::ObjectIndex) => relation_object(cx, &names, RelKind::Index, "an index")?,
        Ok(ObjectType::ObjectMatview) => {
            relation_object(cx, &names, RelKind::MatView, "a materialized view")?
        }
        Ok(ObjectType::ObjectSequence) => {
            relation_object(cx, &names, RelKind::Sequence, "a sequence")?
        }
        Ok(ObjectType::ObjectView) => relation_object(cx, &names, RelKind::View, "a view")?,
        Ok(ObjectType::ObjectColumn) => column_object(cx, &names)?,
        Ok(ObjectType::ObjectTabconstraint) => constraint_object(cx, &names)?,
        Ok(ObjectType::ObjectSchema) => schema_object(cx, stmt)?,
        Ok(kind @ (ObjectType::ObjectType | ObjectType::ObjectDomain)) => {
            let Some(NodeEnum::TypeName(type_name)) =
                stmt.object.as_deref().and_then(|o| o.node.as_ref())
            else {
                return Err(SqlError::internal("COMMENT ON TYPE without a type name"));
            };
            let domain = kind == ObjectType::ObjectDomain;
            let oid = super::typecmds::type_for_change(cx, &type_name.names, domain)?;
            ObjectAddress { classid: crate::catalog::schema::PG_TYPE.oid, objid: oid, objsubid: 0 }
        }
        Ok(other) => {
            let kind = format!("{other:?}").trim_start_matches("Object").to_uppercase();
            return Err(SqlError::unsupported(format!("COMMENT ON {kind} is not supported yet")));
        }
        Err(_) => return Err(SqlError::internal("COMMENT ON an unknown object type")),
    };
    let engine = cx.engine().clone();
    let db = cx.database();
    set_comment(&engine, db, cx.txn()?, &object, &stmt.comment)?;
    sink.complete("COMMENT")
}

/// A schema, locked as DROP SCHEMA would lock it for its description.
fn schema_object(cx: &mut dyn BackendContext, stmt: &CommentStmt) -> Result<ObjectAddress> {
    let name = stmt.object.as_deref().and_then(node_str).unwrap_or_default();
    let oid = cx.schema_oid(&name)?;
    lock_object(&mut cx.parts()?, PG_NAMESPACE.oid, oid, LockMode::ShareUpdateExclusive)?;
    Ok(ObjectAddress { classid: PG_NAMESPACE.oid, objid: oid, objsubid: 0 })
}

/// The dotted name the statement gives.
fn object_names(stmt: &CommentStmt) -> Vec<String> {
    match stmt.object.as_deref().and_then(|o| o.node.as_ref()) {
        Some(NodeEnum::List(list)) => list.items.iter().filter_map(node_str).collect(),
        _ => Vec::new(),
    }
}

/// The relation `names` denotes, locked ShareUpdateExclusive (42P01 if
/// none).
fn locked_relation(cx: &mut dyn BackendContext, names: &[String]) -> Result<RelationId> {
    let rv = range_var(names)?;
    let rel = cx.find_relation(&rv)?.ok_or_else(|| missing_relation(&rv.relname))?;
    lock_relation(cx, rel.oid, LockMode::ShareUpdateExclusive)?;
    Ok(rel)
}

/// A table, index or sequence (42809 for a relation of another kind).
fn relation_object(
    cx: &mut dyn BackendContext,
    names: &[String],
    kind: RelKind,
    what: &str,
) -> Result<ObjectAddress> {
    let rel = locked_relation(cx, names)?;
    if rel.kind != kind {
        return Err(SqlError::new("42809", format!("\"{}\" is not {what}", rel.name)));
    }
    Ok(ObjectAddress::relation(rel.oid))
}

/// `[schema.]table.column`.
fn column_object(cx: &mut dyn BackendContext, names: &[String]) -> Result<ObjectAddress> {
    let Some((column, table)) = names.split_last().filter(|(_, t)| !t.is_empty()) else {
        return Err(SqlError::syntax("column name must be qualified"));
    };
    let rel = locked_relation(cx, table)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let attnum = crate::catalog::relation::attnum_of(&engine, db, cx.txn()?, rel.oid, column)?;
    let attnum = attnum.ok_or_else(|| {
        SqlError::new(
            "42703",
            format!("column \"{column}\" of relation \"{}\" does not exist", rel.name),
        )
    })?;
    Ok(ObjectAddress::column(rel.oid, attnum))
}

/// `CONSTRAINT name ON [schema.]table`: the names end with the constraint's.
fn constraint_object(cx: &mut dyn BackendContext, names: &[String]) -> Result<ObjectAddress> {
    let Some((name, table)) = names.split_last() else {
        return Err(SqlError::internal("COMMENT ON CONSTRAINT without a name"));
    };
    let rel = locked_relation(cx, table)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = constraints_of(&engine, db, cx.txn()?, rel.oid)?;
    let found = rows.iter().find(|(_, r)| r[CON_NAME].as_str() == Some(name.as_str()));
    match found {
        Some((_, row)) => {
            Ok(ObjectAddress { classid: PG_CONSTRAINT.oid, objid: oid_of(&row[0]), objsubid: 0 })
        }
        None => Err(SqlError::new(
            "42704",
            format!("constraint \"{name}\" for table \"{}\" does not exist", rel.name),
        )),
    }
}
