//! Name lookup (PostgreSQL's `catalog/namespace.c`): the namespace a
//! possibly qualified name goes to, the namespaces an unqualified one is
//! searched in, the one relation lookup every statement uses, and
//! PostgreSQL's 42P01 when nothing is found (`BackendContext::find_named`
//! is the lookup commands call).
//!
//! sluice has two schemas, `pg_catalog` and `public`; the search path is
//! fixed to both, in that order ([`SEARCH_PATH`]). Lookups
//! read `pg_class` under the caller's transaction; they take no lock (the
//! caller locks, then re-checks where PostgreSQL does).

use super::relation::{self, RelationDesc, RelationId};
use super::schema::{PG_CATALOG_NAMESPACE, PUBLIC_NAMESPACE};
use crate::error::{position, Result, SqlError};
use pg_query::protobuf::RangeVar;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_txn::Transaction;

/// The namespaces an unqualified name is searched in, in order.
pub const SEARCH_PATH: [Oid; 2] = [PG_CATALOG_NAMESPACE, PUBLIC_NAMESPACE];

/// The namespace a (possibly qualified) name goes to.
pub(crate) fn target_namespace(rv: &RangeVar) -> Result<Oid> {
    match rv.schemaname.as_str() {
        "" | "public" => Ok(PUBLIC_NAMESPACE),
        "pg_catalog" => Ok(PG_CATALOG_NAMESPACE),
        other => Err(SqlError::new("3F000", format!("schema \"{other}\" does not exist"))
            .at(position(rv.location))),
    }
}

/// The namespaces `rv` is looked up in: its schema, or the search path.
fn namespaces_for(search_path: &[Oid], rv: &RangeVar) -> Result<Vec<Oid>> {
    if rv.schemaname.is_empty() {
        Ok(search_path.to_vec())
    } else {
        Ok(vec![target_namespace(rv)?])
    }
}

/// 42P01 `relation "name" does not exist`.
pub fn missing_relation(name: &str) -> SqlError {
    SqlError::new("42P01", format!("relation \"{name}\" does not exist"))
}

/// find -- the relation `rv` names, if any, looked up along its schema or
/// `search_path` as `txn` sees the catalogs.
pub(crate) fn find(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    search_path: &[Oid],
    rv: &RangeVar,
) -> Result<Option<RelationId>> {
    relation::find(engine, db, txn, &namespaces_for(search_path, rv)?, &rv.relname)
}

/// lookup -- [`find`], with the relation's description.
pub(crate) fn lookup(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    search_path: &[Oid],
    rv: &RangeVar,
) -> Result<Option<RelationDesc>> {
    relation::lookup(engine, db, txn, &namespaces_for(search_path, rv)?, &rv.relname)
}
