//! Name lookup (PostgreSQL's `catalog/namespace.c`): the schemas an
//! unqualified name is searched in, the schema a new object goes to, the
//! one relation lookup every statement uses, and PostgreSQL's errors when
//! nothing is found.
//!
//! # The search path
//!
//! `search_path` is a list of schema names; [`SearchPath::resolve`] turns
//! it into schema OIDs as PostgreSQL's `recomputeNamespacePath` does:
//! `$user` stands for the schema named like the session user, names of
//! schemas that do not exist are skipped (no error: a path may name a
//! schema created later), duplicates count once, and `pg_catalog` is
//! searched first unless the path lists it somewhere itself. A new object
//! without a schema goes to the first schema the path lists explicitly
//! (`current_schema()`); with none, creating is 3F000 "no schema has been
//! selected to create in".
//!
//! The path is resolved from the setting each time a statement needs it,
//! under the statement's snapshot: a schema created, renamed or dropped
//! changes what the same setting means, with no cache to invalidate. The
//! probes go through the catalog cache, so resolving costs a hash lookup
//! per listed schema.
//!
//! Lookups read the catalogs under the caller's snapshot and take no lock
//! (the caller locks, then re-checks where PostgreSQL does).

use super::relation::oid_of;
use super::relation::{self, RelationDesc, RelationId};
use super::scan_eq_as;
use super::schema::{PG_CATALOG_NAMESPACE, PG_NAMESPACE};
use crate::error::{position, Result, SqlError};
use pg_query::protobuf::RangeVar;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_txn::Transaction;
use sluice_types::Datum;

/// A resolved search path (PostgreSQL's activeSearchPath).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchPath {
    /// Every schema searched, in order, `pg_catalog` included.
    schemas: Vec<Oid>,
    /// Whether `pg_catalog` was put first without being listed.
    implicit_catalog: bool,
}

impl SearchPath {
    /// resolve -- the schemas `setting` (the `search_path` value) names,
    /// for a session of `user`, as `ctx` sees `pg_namespace`.
    pub fn resolve(
        engine: &Engine,
        db: Oid,
        ctx: &VisibilityContext,
        setting: &str,
        user: &str,
    ) -> Result<SearchPath> {
        let names = sluice_guc::split_identifier_list(setting).unwrap_or_default();
        let mut schemas = Vec::new();
        for name in &names {
            let name = if name == "$user" { user } else { name.as_str() };
            if let Some(oid) = namespace_oid(engine, db, ctx, name)? {
                if !schemas.contains(&oid) {
                    schemas.push(oid);
                }
            }
        }
        let implicit_catalog = !schemas.contains(&PG_CATALOG_NAMESPACE);
        if implicit_catalog {
            schemas.insert(0, PG_CATALOG_NAMESPACE);
        }
        Ok(SearchPath { schemas, implicit_catalog })
    }

    /// Every schema searched for an unqualified name, in order.
    pub fn schemas(&self) -> &[Oid] {
        &self.schemas
    }

    /// The schemas the setting itself lists (`current_schemas(false)`).
    pub fn explicit(&self) -> &[Oid] {
        &self.schemas[usize::from(self.implicit_catalog)..]
    }

    /// Where an object created without a schema goes (`current_schema()`).
    pub fn creation_namespace(&self) -> Option<Oid> {
        self.explicit().first().copied()
    }
}

/// namespace_oid -- the OID of the schema named `name`, if there is one.
pub fn namespace_oid(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    name: &str,
) -> Result<Option<Oid>> {
    let rows = scan_eq_as(engine, db, &PG_NAMESPACE, ctx, 1, &Datum::Text(name.into()), |_| true)?;
    Ok(rows.first().map(|(_, r)| oid_of(&r[0])))
}

/// namespace_name -- the name of schema `oid`, if there is one.
pub fn namespace_name(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    oid: Oid,
) -> Result<Option<String>> {
    let rows = scan_eq_as(engine, db, &PG_NAMESPACE, ctx, 0, &Datum::Oid(oid), |_| true)?;
    Ok(rows.first().and_then(|(_, r)| r[1].as_str().map(str::to_string)))
}

/// 3F000 `schema "name" does not exist`.
pub fn missing_schema(name: &str) -> SqlError {
    SqlError::new("3F000", format!("schema \"{name}\" does not exist"))
}

/// schema_oid -- [`namespace_oid`], 3F000 when there is none
/// (PostgreSQL's get_namespace_oid with missing_ok false).
pub fn schema_oid(engine: &Engine, db: Oid, ctx: &VisibilityContext, name: &str) -> Result<Oid> {
    namespace_oid(engine, db, ctx, name)?.ok_or_else(|| missing_schema(name))
}

/// creation_namespace -- the schema a new relation named `rv` goes to: its
/// own schema, or the search path's creation namespace
/// (RangeVarGetCreationNamespace).
pub fn creation_namespace(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    rv: &RangeVar,
) -> Result<Oid> {
    if rv.schemaname.is_empty() {
        return path.creation_namespace().ok_or_else(|| {
            SqlError::new("3F000", "no schema has been selected to create in")
                .at(position(rv.location))
        });
    }
    namespace_oid(engine, db, ctx, &rv.schemaname)?
        .ok_or_else(|| missing_schema(&rv.schemaname).at(position(rv.location)))
}

/// The schemas `rv` is looked up in: its own, or the search path's.
fn namespaces_for(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    rv: &RangeVar,
) -> Result<Vec<Oid>> {
    let schema = (!rv.schemaname.is_empty()).then_some(rv.schemaname.as_str());
    lookup_namespaces(engine, db, ctx, path, schema).map_err(|e| e.at(position(rv.location)))
}

/// lookup_namespaces -- where a name qualified by `schema` (or not
/// qualified) is looked up: that schema (3F000 if there is none), or the
/// search path.
pub fn lookup_namespaces(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    schema: Option<&str>,
) -> Result<Vec<Oid>> {
    match schema {
        None => Ok(path.schemas().to_vec()),
        Some(name) => Ok(vec![schema_oid(engine, db, ctx, name)?]),
    }
}

/// 42P01 `relation "name" does not exist`.
pub fn missing_relation(name: &str) -> SqlError {
    SqlError::new("42P01", format!("relation \"{name}\" does not exist"))
}

/// The name `rv` spells, qualified as it was written (`s.t` or `t`), for
/// messages.
pub fn written_name(rv: &RangeVar) -> String {
    if rv.schemaname.is_empty() {
        rv.relname.clone()
    } else {
        format!("{}.{}", rv.schemaname, rv.relname)
    }
}

/// find_as -- the relation `rv` names, if any, looked up in its schema or
/// along `path` under the snapshot of `ctx`.
pub fn find_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    rv: &RangeVar,
) -> Result<Option<RelationId>> {
    relation::find_as(engine, db, ctx, &namespaces_for(engine, db, ctx, path, rv)?, &rv.relname)
}

/// find -- [`find_as`] as `txn` sees the catalogs.
pub(crate) fn find(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    path: &SearchPath,
    rv: &RangeVar,
) -> Result<Option<RelationId>> {
    find_as(engine, db, &VisibilityContext::for_transaction(txn, engine.txns()), path, rv)
}

/// lookup -- [`find`], with the relation's description.
pub(crate) fn lookup(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    path: &SearchPath,
    rv: &RangeVar,
) -> Result<Option<RelationDesc>> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let namespaces = namespaces_for(engine, db, &ctx, path, rv)?;
    relation::lookup_as(engine, db, &ctx, &namespaces, &rv.relname)
}

/// is_visible -- whether `rel` is what its bare name finds along `path`
/// (PostgreSQL's RelationIsVisible).
pub fn is_visible(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    rel: &RelationId,
) -> Result<bool> {
    if !path.schemas().contains(&rel.namespace) {
        return Ok(false);
    }
    let first = relation::find_as(engine, db, ctx, path.schemas(), &rel.name)?;
    Ok(first.is_some_and(|f| f.oid == rel.oid))
}
