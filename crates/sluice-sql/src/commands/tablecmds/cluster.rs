//! The clustered-index mark (PostgreSQL's `mark_index_clustered` and
//! `check_index_is_clusterable` in `commands/cluster.c`): which index of a
//! table `pg_index.indisclustered` names, so that a later `CLUSTER t` knows
//! the order to rewrite in.
//!
//! `ALTER TABLE t CLUSTER ON i` and `SET WITHOUT CLUSTER` set and clear the
//! mark here; CLUSTER itself (the rewrite) is in the `sluice-maint` crate,
//! which sets the mark through the same functions. The caller holds the
//! table's lock; the mark is a new `pg_index` row version, so it is
//! transactional like any catalog change.

use crate::catalog::index::{indexes_of, IndexDesc};
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::{self, oid_of, RelationDesc};
use crate::catalog::schema::{RelKind, PG_INDEX};
use crate::catalog::statistic::latest_view;
use crate::catalog::{replace, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use sluice_common::Oid;
use sluice_types::Datum;

/// `pg_index.indisclustered`.
pub const INDISCLUSTERED: usize = 9;

/// The table `oid` and its indexes as they are now that it is locked.
pub fn current_table(
    cx: &mut dyn BackendContext,
    oid: Oid,
) -> Result<Option<(RelationDesc, Vec<IndexDesc>)>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = latest_view(cx.txn()?, engine.txns());
    let Some(table) = relation::by_oid(&engine, db, &ctx, oid)? else { return Ok(None) };
    let indexes = indexes_of(&engine, db, &ctx, oid)?;
    Ok(Some((table, indexes)))
}

/// named_index -- the index `name` of `rel`: 42704 if there is no such
/// index, 42809 if it belongs to another table.
pub fn named_index(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    indexes: Vec<IndexDesc>,
    name: &str,
) -> Result<IndexDesc> {
    if let Some(index) = indexes.into_iter().find(|i| i.name == name) {
        return Ok(index);
    }
    let engine = cx.engine().clone();
    let db = cx.database();
    let other = relation::find(&engine, db, cx.txn()?, &[rel.namespace], name)?;
    Err(match other {
        Some(other) if other.kind == RelKind::Index => {
            SqlError::new("42809", format!("\"{name}\" is not an index for table \"{}\"", rel.name))
        }
        _ => SqlError::new(
            "42704",
            format!("index \"{name}\" for table \"{}\" does not exist", rel.name),
        ),
    })
}

/// cluster_on -- ALTER TABLE `table` CLUSTER ON `name`: marks the index for
/// a later `CLUSTER table` (PostgreSQL's ATExecClusterOn); the caller holds
/// the table's lock.
pub(crate) fn cluster_on(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
) -> Result<()> {
    let Some((rel, indexes)) = current_table(cx, table.oid)? else {
        return Err(missing_relation(&table.name));
    };
    let index = named_index(cx, &rel, indexes, name)?;
    check_clusterable(&index)?;
    mark_index_clustered(cx, rel.oid, Some(index.oid))
}

/// check_clusterable -- PostgreSQL's check_index_is_clusterable: a partial
/// or invalid index does not cover every row.
pub fn check_clusterable(index: &IndexDesc) -> Result<()> {
    if index.predicate.is_some() {
        return Err(SqlError::unsupported(format!(
            "cannot cluster on partial index \"{}\"",
            index.name
        )));
    }
    if !index.valid {
        return Err(SqlError::unsupported(format!(
            "cannot cluster on invalid index \"{}\"",
            index.name
        )));
    }
    Ok(())
}

/// mark_index_clustered -- sets `indisclustered` on `index` and clears it
/// on the table's other indexes (PostgreSQL's mark_index_clustered; `None`
/// clears them all: ALTER TABLE ... SET WITHOUT CLUSTER).
pub fn mark_index_clustered(
    cx: &mut dyn BackendContext,
    table: Oid,
    index: Option<Oid>,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    for (tid, mut row) in scan(&engine, db, &PG_INDEX, txn, |r| oid_of(&r[1]) == table)? {
        let clustered = Some(oid_of(&row[0])) == index;
        if row[INDISCLUSTERED] != Datum::Bool(clustered) {
            row[INDISCLUSTERED] = Datum::Bool(clustered);
            replace(&engine, db, &PG_INDEX, txn, tid, &row)?;
        }
    }
    txn.increment_command();
    Ok(())
}
