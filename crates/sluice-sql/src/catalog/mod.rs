//! The system catalogs: heap tables describing every relation, column, type,
//! namespace, database and role (PostgreSQL's `catalog/`).
//!
//! Catalog rows are read and written through the heap access method under the
//! caller's transaction, so DDL is transactional: a `CREATE TABLE` rolled back
//! leaves no row behind, and other sessions see a new table only once its
//! creator commits. `schema.rs` defines the catalogs, `bootstrap.rs` fills them
//! when a cluster is created (initdb), `relation.rs` reads relation
//! descriptors back, `depend.rs` records which object depends on which, and
//! this file holds the row-level access all of them use.
//!
//! Reads go through the engine's shared catalog cache (`sluice_access::catcache`):
//! the visible tuples of a whole catalog, copied once per catalog-changing
//! commit and probed by key, so a statement's lookups cost hash probes rather
//! than heap scans. Writes mark the transaction as a catalog writer, which
//! keeps its own reads out of the cache and makes its commit invalidate it.

pub mod authid;
pub mod bootstrap;
pub mod comment;
pub mod constraint;
pub mod depend;
pub mod extension;
pub mod foreign_key;
pub mod index;
pub mod information_schema;
pub mod namespace;
pub mod pg_type;
pub mod relation;
pub mod rewrite;
pub mod rows;
pub mod schema;
pub mod statistic;
pub mod system_views;
pub mod unfilled;

use crate::error::Result;
use rows::{deform_row, form_row, tuple_desc};
use schema::CatalogDef;
use sluice_access::catcache::{CatalogRow, CatalogRows};
use sluice_access::common::{get_attr, TupleDesc};
use sluice_access::heap::heapam::{heap_delete, heap_insert, heap_update};
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::HeapRelation;
use sluice_access::AccessError;
use sluice_access::Engine;
use sluice_common::{ItemPointer, Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::Transaction;
use sluice_types::storage::to_storage;
use sluice_types::Datum;
use std::sync::Arc;

/// The tablespace of shared catalogs (`pg_global`).
pub const GLOBALTABLESPACE_OID: Oid = 1664;

/// Where catalog `def` of database `db` lives.
pub fn catalog_locator(def: &CatalogDef, db: Oid) -> RelFileLocator {
    if def.shared {
        RelFileLocator { spc_oid: GLOBALTABLESPACE_OID, db_oid: 0, rel_number: def.oid }
    } else {
        RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: db, rel_number: def.oid }
    }
}

fn heap_of(def: &CatalogDef, db: Oid) -> HeapRelation {
    HeapRelation::new(catalog_locator(def, db))
}

/// scan -- every row of catalog `def` visible to `txn`'s current snapshot that
/// `keep` accepts, with its address.
pub fn scan(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    txn: &mut Transaction,
    keep: impl FnMut(&[Datum]) -> bool,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    scan_as(engine, db, def, &ctx, keep)
}

/// scan_as -- like [`scan`], under an already taken snapshot (for code that
/// cannot borrow the transaction, such as expression evaluation).
pub fn scan_as(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    ctx: &VisibilityContext,
    keep: impl FnMut(&[Datum]) -> bool,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    scan_matching(engine, db, def, ctx, None, keep)
}

/// scan_eq_as -- like [`scan_as`], for the rows whose column `column`
/// equals `key`. The column is compared in its stored form, so the rows of
/// other objects — nearly all of them, for a lookup by OID or name — are
/// never decoded.
pub fn scan_eq_as(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    ctx: &VisibilityContext,
    column: usize,
    key: &Datum,
    keep: impl FnMut(&[Datum]) -> bool,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    let wanted = to_storage(def.types()[column], key);
    scan_matching(engine, db, def, ctx, Some((column, &wanted)), keep)
}

/// The rows of `def` whose column `key.0` holds the stored bytes `key.1`
/// (every row without a key) and that `keep` accepts.
///
/// They come from the shared catalog cache when a copy seen by a snapshot
/// with the same catalog contents is there, else from a heap scan that fills
/// it; a transaction that wrote catalogs scans for itself (`sluice_access::catcache`).
fn scan_matching(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    ctx: &VisibilityContext,
    key: Option<(usize, &[u8])>,
    mut keep: impl FnMut(&[Datum]) -> bool,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    let types = def.types();
    let desc = tuple_desc(&types);
    let changes = engine.txns().catalog_changes();
    if !changes.may_fill(&ctx.snapshot) {
        return scan_heap(engine, db, def, ctx, &desc, key, keep);
    }
    let cached = cached_rows(engine, db, def, ctx)?;
    let mut rows = Vec::new();
    let mut take = |(tid, tuple): &CatalogRow| -> Result<()> {
        let values = deform_row(&desc, &types, tuple)?;
        if keep(&values) {
            rows.push((*tid, values));
        }
        Ok(())
    };
    match key {
        Some((column, wanted)) => {
            for &i in cached.matching(&desc, column, wanted)? {
                take(cached.row(i))?;
            }
        }
        None => cached.rows().iter().try_for_each(take)?,
    }
    Ok(rows)
}

/// The visible tuples of catalog `def`, from the cache or read into it.
fn cached_rows(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    ctx: &VisibilityContext,
) -> Result<Arc<CatalogRows>> {
    let locator = catalog_locator(def, db);
    let changes = engine.txns().catalog_changes();
    if let Some(hit) = engine.catcache().get(locator, &ctx.snapshot, changes) {
        return Ok(hit);
    }
    let mut scan = HeapScan::begin(engine, &heap_of(def, db), ctx.clone())?;
    let mut rows = Vec::new();
    while let Some((tid, tuple)) = scan.next_tuple()? {
        rows.push((tid, tuple.to_vec()));
    }
    Ok(engine.catcache().put(locator, &ctx.snapshot, changes, def.types().len(), rows))
}

/// scan_heap -- [`scan_matching`] without the cache. The key column is
/// compared in its stored form before the row is decoded.
fn scan_heap(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    ctx: &VisibilityContext,
    desc: &TupleDesc,
    key: Option<(usize, &[u8])>,
    mut keep: impl FnMut(&[Datum]) -> bool,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    let types = def.types();
    let mut scan = HeapScan::begin(engine, &heap_of(def, db), ctx.clone())?;
    let mut rows = Vec::new();
    while let Some((tid, tuple)) = scan.next_tuple()? {
        if let Some((column, wanted)) = key {
            if get_attr(desc, tuple, column).map_err(AccessError::from)? != Some(wanted) {
                continue;
            }
        }
        let values = deform_row(desc, &types, tuple)?;
        if keep(&values) {
            rows.push((tid, values));
        }
    }
    Ok(rows)
}

/// insert -- adds a row to catalog `def`.
pub fn insert(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    txn: &mut Transaction,
    values: &[Datum],
) -> Result<ItemPointer> {
    let tuple = catalog_tuple(def, values);
    txn.note_catalog_write();
    Ok(heap_insert(engine, &heap_of(def, db), txn, &tuple)?)
}

/// A row of catalog `def` as a heap tuple.
fn catalog_tuple(def: &CatalogDef, values: &[Datum]) -> Vec<u8> {
    let types = def.types();
    form_row(&tuple_desc(&types), &types, values)
}

/// delete -- removes the row at `tid` from catalog `def`. DDL holds a lock
/// on the object, so no other DDL changes the row meanwhile; a client's
/// `SELECT ... FOR UPDATE` of it may still make the delete wait, and
/// cancel and the statement's timeouts end that wait.
pub fn delete(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    txn: &mut Transaction,
    tid: ItemPointer,
) -> Result<()> {
    txn.note_catalog_write();
    let interrupted = txn.interrupt_check();
    heap_delete(engine, &heap_of(def, db), txn, tid, &*interrupted)?
        .map_err(|f| changed_concurrently(tid, f))
}

/// replace -- updates the row at `tid` of catalog `def` to `values`. The
/// row's key (its OID or name) is as good as unchanged for row lockers:
/// like PostgreSQL's catalog updates, this is a no-key update, so a
/// client's `FOR KEY SHARE` lock on the row does not make it wait (`FOR
/// UPDATE` and `FOR NO KEY UPDATE` do, cancellably). Catalogs have no
/// indexes, so the new version may be heap-only.
pub fn replace(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    txn: &mut Transaction,
    tid: ItemPointer,
    values: &[Datum],
) -> Result<ItemPointer> {
    let tuple = catalog_tuple(def, values);
    txn.note_catalog_write();
    let interrupted = txn.interrupt_check();
    let no_key_changed = |_: &[u8], _: &[u8]| true;
    let rel = heap_of(def, db);
    let updated = heap_update(engine, &rel, txn, tid, &tuple, &no_key_changed, &*interrupted)?;
    Ok(updated.map_err(|f| changed_concurrently(tid, f))?.tid)
}

/// XX000 for a catalog row another transaction changed first (PostgreSQL's
/// `tuple concurrently updated`).
fn changed_concurrently(tid: ItemPointer, failure: impl std::fmt::Debug) -> crate::SqlError {
    crate::SqlError::internal(format!("catalog row at {tid} changed concurrently: {failure:?}"))
}
