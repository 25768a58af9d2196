//! CREATE SCHEMA, ALTER SCHEMA and DROP SCHEMA (PostgreSQL's
//! `commands/schemacmds.c`, and the part of `catalog/dependency.c` that
//! DROP SCHEMA needs).
//!
//! A schema is a `pg_namespace` row; what lives in it says so by its own
//! namespace column (`pg_class.relnamespace`, `pg_extension.extnamespace`),
//! which is what DROP SCHEMA reads to find its members — PostgreSQL reads
//! the same facts from `pg_depend`, where each object records a normal
//! dependency on its schema. Members are listed as PostgreSQL's
//! reportDependentObjects lists them: tables, sequences and extensions in
//! the order they were created (ascending OID), without the objects that
//! go along with them anyway (indexes, sequences owned by a member table),
//! named as `getObjectDescription` names them (qualified unless the search
//! path finds them).
//!
//! # Locking
//!
//! A schema is locked as a database object (LOCKTAG_OBJECT on
//! `pg_namespace`): DROP and ALTER SCHEMA take AccessExclusive, creating a
//! relation in a schema takes AccessShare (`BackendContext::
//! creation_namespace`), so a table cannot be created in a schema whose
//! drop or rename is committing, and a drop sees every table created
//! before it got its lock. After the lock, the schema is looked up by name
//! again under a renewed snapshot (READ COMMITTED), as PostgreSQL does after
//! accepting invalidation messages.

use super::sequence;
use super::tablecmds::{self, remove_relation};
use super::typecmds;
use crate::catalog::authid::role_oid;
use crate::catalog::comment::remove_comments;
use crate::catalog::depend::{self, DepType};
use crate::catalog::namespace::missing_schema;
use crate::catalog::relation::{find_by_oid, oid_of, RelationId};
use crate::catalog::schema::{RelKind, PG_CLASS, PG_EXTENSION, PG_NAMESPACE};
use crate::catalog::{delete, insert, replace, scan};
use crate::commands::dependency::{dependents_error, relation_name, report_cascade};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::lock_namespace;
use crate::parser::node_str;
use crate::sink::{NestedSink, QuerySink};
use pg_query::protobuf::{
    AlterOwnerStmt, CreateSchemaStmt, DropBehavior, DropStmt, RangeVar, RoleSpec, RoleSpecType,
};
use pg_query::NodeEnum;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// `pg_namespace.nspname`'s position.
const NSP_NAME: usize = 1;
/// `pg_namespace.nspowner`'s position.
const NSP_OWNER: usize = 2;
/// `pg_extension.extnamespace`'s position.
const EXT_NAMESPACE: usize = 3;

/// CREATE SCHEMA [IF NOT EXISTS] [name] [AUTHORIZATION role] [element ...].
pub fn create_schema(
    cx: &mut dyn BackendContext,
    stmt: &CreateSchemaStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let owner_name = match &stmt.authrole {
        Some(role) => role_name(cx, role),
        None => cx.user().to_string(),
    };
    let name =
        if stmt.schemaname.is_empty() { owner_name.clone() } else { stmt.schemaname.clone() };
    let engine = cx.engine().clone();
    let owner = role_oid(&engine, cx.txn()?, &owner_name)?;
    check_schema_name(&name)?;
    if find(cx, &name)?.is_some() {
        let exists = format!("schema \"{name}\" already exists");
        if stmt.if_not_exists {
            sink.notice(&SqlError::new("42P06", format!("{exists}, skipping")))?;
            return sink.complete("CREATE SCHEMA");
        }
        return Err(SqlError::new("42P06", exists));
    }
    let oid = engine.new_oid()?;
    let row = [Datum::Oid(oid), Datum::Text(name.clone()), Datum::Oid(owner), Datum::Null];
    insert(&engine, cx.database(), &PG_NAMESPACE, cx.txn()?, &row)?;
    cx.txn()?.increment_command();
    for element in schema_elements(stmt, &name)? {
        run_element(cx, &element, sink)?;
        cx.txn()?.increment_command();
    }
    sink.complete("CREATE SCHEMA")
}

/// The role a RoleSpec names (CURRENT_USER and friends are the session's).
fn role_name(cx: &mut dyn BackendContext, role: &RoleSpec) -> String {
    match RoleSpecType::try_from(role.roletype) {
        Ok(RoleSpecType::RolespecCstring) => role.rolename.clone(),
        Ok(RoleSpecType::RolespecPublic) => "public".to_string(),
        _ => cx.user().to_string(),
    }
}

/// 42939 for a name in the `pg_` prefix, which PostgreSQL keeps for its own.
fn check_schema_name(name: &str) -> Result<()> {
    if name.starts_with("pg_") {
        return Err(SqlError::new("42939", format!("unacceptable schema name \"{name}\""))
            .with_detail("The prefix \"pg_\" is reserved for system schemas."));
    }
    Ok(())
}

/// The statements inside CREATE SCHEMA, in the order PostgreSQL runs them
/// (transformCreateSchemaStmt: sequences, then tables, then indexes), each
/// placed in the new schema; one that names another schema is 42P15.
fn schema_elements(stmt: &CreateSchemaStmt, schema: &str) -> Result<Vec<NodeEnum>> {
    let mut ordered: [Vec<NodeEnum>; 3] = Default::default();
    for node in stmt.schema_elts.iter().filter_map(|n| n.node.clone()) {
        let (rank, mut node) = match node {
            NodeEnum::CreateSeqStmt(_) => (0, node),
            NodeEnum::CreateStmt(_) => (1, node),
            NodeEnum::IndexStmt(_) => (2, node),
            other => {
                let kind = match other {
                    NodeEnum::ViewStmt(_) => "CREATE VIEW",
                    NodeEnum::CreateTrigStmt(_) => "CREATE TRIGGER",
                    NodeEnum::GrantStmt(_) => "GRANT",
                    _ => "this statement",
                };
                return Err(SqlError::unsupported(format!(
                    "{kind} inside CREATE SCHEMA is not supported yet"
                )));
            }
        };
        if let Some(rv) = element_relation(&mut node) {
            if rv.schemaname.is_empty() {
                rv.schemaname = schema.to_string();
            } else if rv.schemaname != schema {
                return Err(SqlError::new(
                    "42P15",
                    format!(
                        "CREATE specifies a schema ({}) different from the one being created ({schema})",
                        rv.schemaname
                    ),
                ));
            }
        }
        ordered[rank].push(node);
    }
    Ok(ordered.into_iter().flatten().collect())
}

/// The relation a schema element creates (for an index: the table it is on).
fn element_relation(node: &mut NodeEnum) -> Option<&mut RangeVar> {
    match node {
        NodeEnum::CreateSeqStmt(s) => s.sequence.as_mut(),
        NodeEnum::CreateStmt(s) => s.relation.as_mut(),
        NodeEnum::IndexStmt(s) => s.relation.as_mut(),
        _ => None,
    }
}

/// Runs one schema element; its notices reach the client, its command tag
/// does not (CREATE SCHEMA answers for all of them).
fn run_element(
    cx: &mut dyn BackendContext,
    node: &NodeEnum,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let mut sink = NestedSink::new(sink);
    match node {
        NodeEnum::CreateSeqStmt(s) => sequence::create_sequence(cx, s, &mut sink),
        NodeEnum::CreateStmt(s) => tablecmds::create_table(cx, s, &mut sink),
        NodeEnum::IndexStmt(s) => super::indexcmds::create_index(cx, s, &mut sink),
        _ => Err(SqlError::internal("unexpected schema element")),
    }
}

/// The `pg_namespace` row of schema `name`, as the transaction sees it.
fn find(cx: &mut dyn BackendContext, name: &str) -> Result<Option<(ItemPointer, Vec<Datum>)>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let rows = scan(&engine, db, &PG_NAMESPACE, cx.txn()?, |r| r[NSP_NAME].as_str() == Some(name))?;
    Ok(rows.into_iter().next())
}

/// The schema `name`, locked AccessExclusive for ALTER or DROP SCHEMA
/// (looked up again after the lock until the answer stays the same).
fn lock_for_change(
    cx: &mut dyn BackendContext,
    name: &str,
) -> Result<Option<(ItemPointer, Vec<Datum>)>> {
    let mut locked = None;
    loop {
        let Some((tid, row)) = find(cx, name)? else { return Ok(None) };
        let oid = oid_of(&row[0]);
        if locked == Some(oid) {
            return Ok(Some((tid, row)));
        }
        lock_namespace(&mut cx.parts()?, oid, LockMode::AccessExclusive)?;
        locked = Some(oid);
    }
}

/// ALTER SCHEMA name RENAME TO new_name.
pub fn rename_schema(
    cx: &mut dyn BackendContext,
    old: &str,
    new: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (tid, mut row) = lock_for_change(cx, old)?.ok_or_else(|| missing_schema(old))?;
    if find(cx, new)?.is_some() {
        return Err(SqlError::new("42P06", format!("schema \"{new}\" already exists")));
    }
    check_schema_name(new)?;
    row[NSP_NAME] = Datum::Text(new.to_string());
    let (engine, db) = (cx.engine().clone(), cx.database());
    replace(&engine, db, &PG_NAMESPACE, cx.txn()?, tid, &row)?;
    sink.complete("ALTER SCHEMA")
}

/// ALTER SCHEMA name OWNER TO role.
pub fn alter_owner(
    cx: &mut dyn BackendContext,
    stmt: &AlterOwnerStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    use pg_query::protobuf::ObjectType;
    let kind = ObjectType::try_from(stmt.object_type);
    if let Ok(ObjectType::ObjectType | ObjectType::ObjectDomain) = kind {
        let role = stmt.newowner.as_ref().map(|r| role_name(cx, r)).unwrap_or_default();
        return typecmds::alter_owner(cx, stmt, &role, kind == Ok(ObjectType::ObjectDomain), sink);
    }
    if kind == Ok(ObjectType::ObjectDatabase) {
        let name = stmt.object.as_deref().and_then(node_str).unwrap_or_default();
        let role = stmt.newowner.as_ref().map(|r| role_name(cx, r)).unwrap_or_default();
        let owner = role_oid(&cx.engine().clone(), cx.txn()?, &role)?;
        return super::dbcommands::alter_owner(cx, &name, owner, sink);
    }
    if kind != Ok(ObjectType::ObjectSchema) {
        return Err(SqlError::unsupported("this ALTER ... OWNER TO form is not supported yet"));
    }
    let name = stmt.object.as_deref().and_then(node_str).unwrap_or_default();
    let role = stmt.newowner.as_ref().map(|r| role_name(cx, r)).unwrap_or_default();
    let engine = cx.engine().clone();
    let owner = role_oid(&engine, cx.txn()?, &role)?;
    let (tid, mut row) = lock_for_change(cx, &name)?.ok_or_else(|| missing_schema(&name))?;
    if row[NSP_OWNER] != Datum::Oid(owner) {
        row[NSP_OWNER] = Datum::Oid(owner);
        replace(&engine, cx.database(), &PG_NAMESPACE, cx.txn()?, tid, &row)?;
    }
    sink.complete("ALTER SCHEMA")
}

/// Something DROP SCHEMA takes with it.
enum Member {
    /// A table or a sequence.
    Relation(RelationId),
    /// An extension installed in the schema.
    Extension(ItemPointer),
    /// A type made by CREATE TYPE (with its array type).
    Type(Oid),
    /// A column of a table outside the schema whose type is one of the
    /// schema's.
    Column(Oid, String),
}

/// One member and how the notice names it.
struct Dependent {
    member: Member,
    description: String,
    /// What it depends on, if not directly on the schema.
    depends_on: Option<String>,
}

/// DROP SCHEMA [IF EXISTS] name, ... [CASCADE | RESTRICT].
pub fn drop_schemas(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let cascade = stmt.behavior == DropBehavior::DropCascade as i32;
    let mut schemas = Vec::new();
    for name in stmt.objects.iter().filter_map(node_str) {
        if name == "pg_catalog" {
            return Err(SqlError::new(
                "2BP01",
                "cannot drop schema pg_catalog because it is required by the database system",
            ));
        }
        match lock_for_change(cx, &name)? {
            Some((tid, row)) => schemas.push((tid, oid_of(&row[0]), name)),
            None if stmt.missing_ok => {
                let notice = format!("schema \"{name}\" does not exist, skipping");
                sink.notice(&SqlError::new("00000", notice))?;
            }
            None => return Err(missing_schema(&name)),
        }
    }
    // PostgreSQL lists the members of the last schema named first (its
    // report walks the deletion order backwards).
    let mut dependents = Vec::new();
    for (_, oid, name) in schemas.iter().rev() {
        let members = members_of(cx, *oid)?;
        if !cascade && !members.is_empty() {
            let lines: Vec<String> = members
                .iter()
                .map(|m| match &m.depends_on {
                    Some(on) => format!("{} depends on {on}", m.description),
                    None => format!("{} depends on schema {name}", m.description),
                })
                .collect();
            return Err(dependents_error(&format!("schema {name}"), &lines));
        }
        dependents.extend(members);
    }
    let described: Vec<String> = dependents.iter().map(|d| d.description.clone()).collect();
    report_cascade(&described, sink)?;
    for dependent in dependents.iter().rev() {
        drop_member(cx, &dependent.member, sink)?;
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    for (tid, oid, _) in schemas {
        delete(&engine, db, &PG_NAMESPACE, cx.txn()?, tid)?;
        remove_comments(&engine, db, cx.txn()?, PG_NAMESPACE.oid, oid, None)?;
    }
    cx.txn()?.increment_command();
    sink.complete("DROP SCHEMA")
}

/// The objects in schema `oid` that dropping it takes along, oldest first:
/// its tables and sequences (not indexes, nor sequences owned by a table
/// of the same schema: they go with their table) and its extensions.
fn members_of(cx: &mut dyn BackendContext, schema: Oid) -> Result<Vec<Dependent>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let in_schema = Datum::Oid(schema);
    let classes = scan(&engine, db, &PG_CLASS, cx.txn()?, |r| r[2] == in_schema)?;
    let mut relations = Vec::new();
    for (_, row) in &classes {
        if let Some(rel) = find_by_oid(&engine, db, cx.txn()?, oid_of(&row[0]))? {
            if matches!(rel.kind, RelKind::Table | RelKind::Sequence | RelKind::View) {
                relations.push(rel);
            }
        }
    }
    let tables: Vec<Oid> =
        relations.iter().filter(|r| r.kind == RelKind::Table).map(|r| r.oid).collect();
    let owned = depend::find(&engine, db, cx.txn()?, |d| {
        matches!(d.kind, DepType::Auto | DepType::Internal)
            && d.object.classid == depend::RELATION_CLASS
            && d.referenced.classid == depend::RELATION_CLASS
            && tables.contains(&d.referenced.objid)
    })?;
    relations.retain(|r| !owned.iter().any(|(_, d)| d.object.objid == r.oid));
    let types = typecmds::types_in_schema(cx, schema)?;
    let mut oids: Vec<Oid> = relations.iter().map(|r| r.oid).chain(types).collect();
    oids.sort();
    let mut members = Vec::new();
    for oid in oids {
        match relations.iter().find(|r| r.oid == oid) {
            Some(rel) => members.push(relation_member(cx, rel.clone())?),
            None => members.extend(type_members(cx, oid, &tables)?),
        }
    }
    let extensions =
        scan(&engine, db, &PG_EXTENSION, cx.txn()?, |r| r[EXT_NAMESPACE] == in_schema)?;
    for (tid, row) in extensions {
        let name = row[1].as_str().unwrap_or_default().to_string();
        members.push(Dependent {
            description: format!("extension {name}"),
            member: Member::Extension(tid),
            depends_on: None,
        });
    }
    Ok(members)
}

/// A table, view or sequence as a member.
fn relation_member(cx: &mut dyn BackendContext, rel: RelationId) -> Result<Dependent> {
    let kind = match rel.kind {
        RelKind::Table => "table",
        RelKind::View => "view",
        _ => "sequence",
    };
    let name = relation_name(cx, &rel)?;
    let description = format!("{kind} {name}");
    Ok(Dependent { description, member: Member::Relation(rel), depends_on: None })
}

/// A type as a member, followed by the columns of other schemas' tables
/// that are of it (those of `tables`, which go anyway, are not listed).
fn type_members(cx: &mut dyn BackendContext, oid: Oid, tables: &[Oid]) -> Result<Vec<Dependent>> {
    let (name, columns) = typecmds::type_and_columns(cx, oid)?;
    let depends_on = Some(format!("type {name}"));
    let mut members = vec![Dependent {
        description: format!("type {name}"),
        member: Member::Type(oid),
        depends_on: None,
    }];
    for c in columns.into_iter().filter(|c| !tables.contains(&c.table)) {
        let member = Member::Column(c.table, c.column);
        members.push(Dependent {
            description: c.description,
            member,
            depends_on: depends_on.clone(),
        });
    }
    Ok(members)
}

/// Drops one member of a schema being dropped with CASCADE.
fn drop_member(
    cx: &mut dyn BackendContext,
    member: &Member,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    // A member is locked before it goes (PostgreSQL's AcquireDeletionLock):
    // a session renaming a column its view reads holds the view, and must
    // not see it vanish under that lock.
    if let Member::Relation(rel) = member {
        if !tablecmds::lock_if_still_there(cx, rel.oid, LockMode::AccessExclusive)? {
            return Ok(());
        }
    }
    match member {
        Member::Relation(rel) if rel.kind == RelKind::Table => {
            let mut quiet = NestedSink::muted(sink);
            tablecmds::drop_table(cx, rel, true, &mut quiet)
        }
        Member::Relation(rel) if rel.kind == RelKind::View => {
            let mut quiet = NestedSink::muted(sink);
            super::view::drop_dependent_views(cx, rel, "view", true, &mut quiet)?;
            remove_relation(cx, rel)
        }
        Member::Relation(rel) => {
            let mut quiet = NestedSink::muted(sink);
            sequence::drop_dependent_defaults(cx, rel, true, &mut quiet)?;
            remove_relation(cx, rel)
        }
        Member::Extension(tid) => {
            let (engine, db) = (cx.engine().clone(), cx.database());
            delete(&engine, db, &PG_EXTENSION, cx.txn()?, *tid)?;
            Ok(())
        }
        Member::Type(oid) => typecmds::remove_type(cx, *oid),
        Member::Column(table, column) => typecmds::drop_typed_column(cx, *table, column, sink),
    }
}
