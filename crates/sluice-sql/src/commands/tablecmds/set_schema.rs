//! ALTER TABLE | SEQUENCE | INDEX | VIEW ... SET SCHEMA (PostgreSQL's
//! AlterTableNamespace in `commands/tablecmds.c`).
//!
//! A relation moves to another schema with what belongs to it: a table's
//! indexes, the sequences its columns own and its constraints' namespace.
//! Only `pg_class.relnamespace` (and `pg_constraint.connamespace`) change;
//! no file is touched. Serial defaults name their sequence with its schema
//! (`catalog::relation::serial_default`), so they are rewritten for the
//! new one. The relation is locked AccessExclusive, as in PostgreSQL, and
//! the new schema AccessShare, so it cannot be dropped under the move.

use super::{describe, lock_for_ddl, update_class_row};
use crate::catalog::constraint::{constraints_of, CON_NAMESPACE};
use crate::catalog::depend::{self, DepType, ObjectAddress};
use crate::catalog::index::indexes_of;
use crate::catalog::namespace::{self, written_name};
use crate::catalog::relation::RelationId;
use crate::catalog::replace;
use crate::catalog::schema::{RelKind, PG_CONSTRAINT};
use crate::commands::sequence::{owned_sequences, relation_exists};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::lock_namespace;
use crate::sink::QuerySink;
use pg_query::protobuf::{AlterObjectSchemaStmt, ObjectType};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// ALTER TABLE | SEQUENCE | INDEX | VIEW [IF EXISTS] name SET SCHEMA schema.
pub fn set_schema(
    cx: &mut dyn BackendContext,
    stmt: &AlterObjectSchemaStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let kind = ObjectType::try_from(stmt.object_type).ok();
    if matches!(kind, Some(ObjectType::ObjectType | ObjectType::ObjectDomain)) {
        return crate::commands::typecmds::set_type_schema(cx, stmt, sink);
    }
    let tag = match kind {
        Some(ObjectType::ObjectTable) => "ALTER TABLE",
        Some(ObjectType::ObjectSequence) => "ALTER SEQUENCE",
        Some(ObjectType::ObjectIndex) => "ALTER INDEX",
        Some(ObjectType::ObjectView) => "ALTER VIEW",
        _ => {
            return Err(SqlError::unsupported(
                "this ALTER ... SET SCHEMA form is not supported yet",
            ))
        }
    };
    let rv =
        stmt.relation.as_ref().ok_or_else(|| SqlError::internal("SET SCHEMA without relation"))?;
    let Some(rel) = lock_for_ddl(cx, rv, LockMode::AccessExclusive)? else {
        if stmt.missing_ok {
            let message = format!("relation \"{}\" does not exist, skipping", written_name(rv));
            sink.notice(&SqlError::new("00000", message))?;
            return sink.complete(tag);
        }
        return Err(namespace::missing_relation(&written_name(rv)));
    };
    if kind == Some(ObjectType::ObjectSequence) && rel.kind != RelKind::Sequence {
        return Err(SqlError::new("42809", format!("\"{}\" is not a sequence", rel.name)));
    }
    refuse_owned_sequence(cx, &rel)?;
    let target = cx.schema_oid(&stmt.newschema)?;
    lock_namespace(&mut cx.parts()?, target, LockMode::AccessShare)?;
    if cx.schema_oid(&stmt.newschema)? != target {
        return Err(namespace::missing_schema(&stmt.newschema));
    }
    if target != rel.namespace {
        move_relation(cx, &rel, target, &stmt.newschema)?;
        crate::commands::view::rename_in_views(cx, &rel, &stmt.newschema, &rel.name)?;
    }
    sink.complete(tag)
}

/// 0A000 for a sequence a column owns: it moves only with its table.
fn refuse_owned_sequence(cx: &mut dyn BackendContext, rel: &RelationId) -> Result<()> {
    if rel.kind != RelKind::Sequence {
        return Ok(());
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    let me = ObjectAddress::relation(rel.oid);
    let owners = depend::find(&engine, db, cx.txn()?, |d| {
        d.object == me
            && matches!(d.kind, DepType::Auto | DepType::Internal)
            && d.referenced.classid == depend::RELATION_CLASS
    })?;
    let Some((_, owner)) = owners.first() else { return Ok(()) };
    let table = describe(cx, owner.referenced.objid)?;
    Err(SqlError::unsupported("cannot move an owned sequence into another schema")
        .with_detail(format!("Sequence \"{}\" is linked to table \"{}\".", rel.name, table.name)))
}

/// Moves `rel` and what belongs to it to schema `target` (named `schema`).
fn move_relation(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    target: Oid,
    schema: &str,
) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let indexes = indexes_of(&engine, db, &ctx, rel.oid)?;
    let sequences = owned_sequences(cx, rel.oid)?;
    let moving = std::iter::once(rel.name.as_str())
        .chain(indexes.iter().map(|i| i.name.as_str()))
        .chain(sequences.iter().map(|s| s.name.as_str()));
    for name in moving {
        if relation_exists(cx, target, name)? {
            return Err(SqlError::new(
                "42P07",
                format!("relation \"{name}\" already exists in schema \"{schema}\""),
            ));
        }
    }
    for seq in &sequences {
        super::rename::rename_in_defaults(cx, seq, target, &seq.name)?;
    }
    let oids = std::iter::once(rel.oid)
        .chain(indexes.iter().map(|i| i.oid))
        .chain(sequences.iter().map(|s| s.oid));
    for oid in oids.collect::<Vec<_>>() {
        update_class_row(cx, oid, |row| row[2] = Datum::Oid(target))?;
    }
    for (tid, mut row) in constraints_of(&engine, db, cx.txn()?, rel.oid)? {
        row[CON_NAMESPACE] = Datum::Oid(target);
        replace(&engine, db, &PG_CONSTRAINT, cx.txn()?, tid, &row)?;
    }
    cx.txn()?.increment_command();
    Ok(())
}
