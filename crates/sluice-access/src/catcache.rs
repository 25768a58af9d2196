//! The catalog cache: the visible tuples of whole catalogs, shared by every
//! session (PostgreSQL's `utils/cache/catcache.c`).
//!
//! Every statement looks up the relations it names (`pg_class`), their
//! columns (`pg_attribute`), defaults, indexes and statistics. Scanning those
//! catalog heaps for each statement cost most of a short query's time, so the
//! first reader under a snapshot copies a catalog's visible tuples once and
//! keeps them here; later readers whose snapshots see the same catalog
//! contents (`sluice_txn::CatalogChanges::same_catalogs`) use the copy. A
//! lookup by a column's value is a hash probe on the value's stored bytes,
//! so only the rows found are ever decoded (by the SQL layer, which knows
//! the types).
//!
//! # Why whole catalogs
//!
//! PostgreSQL caches single rows found through catalog indexes, and negative
//! entries for rows that are not there. Catalogs here have no indexes, so a
//! miss is a heap scan either way; keeping all of a catalog's rows answers
//! every lookup, including "not found" and lookups by any column, from one
//! scan. Catalogs are small (hundreds to a few thousand rows), and an entry
//! is rebuilt only after a catalog-changing commit.
//!
//! # Invariants
//!
//! * An entry holds exactly the rows visible to a snapshot with CSN
//!   `built_at` that wrote no catalogs; it is used only under snapshots that
//!   see the same catalog commits.
//! * Entries are immutable once built (shared as `Arc`); the per-column key
//!   maps are built lazily behind `OnceLock` (two builders racing build the
//!   same map; one is kept).
//!
//! # Locking
//!
//! One mutex guards the map of entries and is held only to clone or swap an
//! `Arc`; scans and decoding happen outside it, so two sessions missing at
//! once may both build an entry, and the later-snapshot one is kept.

use crate::common::{get_attr, TupleDesc};
use crate::error::Result;
use parking_lot::Mutex;
use sluice_common::{ItemPointer, RelFileLocator};
use sluice_txn::{CatalogChanges, Csn, Snapshot};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// A catalog tuple and its address.
pub type CatalogRow = (ItemPointer, Vec<u8>);

/// Stored bytes of a column's value → positions of the rows holding it.
type KeyMap = HashMap<Vec<u8>, Vec<usize>>;

/// The cache of all catalogs of all databases.
#[derive(Default)]
pub struct CatCache {
    entries: Mutex<HashMap<RelFileLocator, Arc<CatalogRows>>>,
}

/// The visible rows of one catalog as of one snapshot.
pub struct CatalogRows {
    built_at: Csn,
    rows: Vec<CatalogRow>,
    /// Per column, built on the first lookup by it.
    keys: Vec<OnceLock<KeyMap>>,
}

impl CatCache {
    /// get -- the rows of catalog `rel` as `snap` sees them, if a cached copy
    /// sees the same catalog contents.
    pub fn get(
        &self,
        rel: RelFileLocator,
        snap: &Snapshot,
        changes: &CatalogChanges,
    ) -> Option<Arc<CatalogRows>> {
        let entry = self.entries.lock().get(&rel).cloned()?;
        changes.same_catalogs(entry.built_at, snap).then_some(entry)
    }

    /// put -- remembers `rows`, read from catalog `rel` (with `columns`
    /// columns) under `snap`, unless `snap`'s transaction wrote catalogs.
    /// Returns the rows for the caller's use either way.
    pub fn put(
        &self,
        rel: RelFileLocator,
        snap: &Snapshot,
        changes: &CatalogChanges,
        columns: usize,
        rows: Vec<CatalogRow>,
    ) -> Arc<CatalogRows> {
        let entry = Arc::new(CatalogRows {
            built_at: snap.csn,
            rows,
            keys: (0..columns).map(|_| OnceLock::new()).collect(),
        });
        if changes.may_fill(snap) {
            let mut entries = self.entries.lock();
            let newer = entries.get(&rel).is_none_or(|old| old.built_at < entry.built_at);
            if newer {
                entries.insert(rel, entry.clone());
            }
        }
        entry
    }
}

impl CatalogRows {
    /// Every row, in heap order.
    pub fn rows(&self) -> &[CatalogRow] {
        &self.rows
    }

    /// matching -- the rows whose column `column` (of `desc`) has the stored
    /// form `key`, in heap order. NULLs match nothing.
    pub fn matching(&self, desc: &TupleDesc, column: usize, key: &[u8]) -> Result<&[usize]> {
        let keys = &self.keys[column];
        if keys.get().is_none() {
            let _ = keys.set(self.key_map(desc, column)?);
        }
        let map = keys.get().expect("set above");
        Ok(map.get(key).map_or(&[], Vec::as_slice))
    }

    /// The row at `position` (from [`CatalogRows::matching`]).
    pub fn row(&self, position: usize) -> &CatalogRow {
        &self.rows[position]
    }

    fn key_map(&self, desc: &TupleDesc, column: usize) -> Result<KeyMap> {
        let mut map = KeyMap::new();
        for (i, (_, tuple)) in self.rows.iter().enumerate() {
            if let Some(value) = get_attr(desc, tuple, column)? {
                map.entry(value.to_vec()).or_default().push(i);
            }
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{form_tuple, AttrDesc};
    use sluice_common::Xid;

    fn snap(csn: u64) -> Snapshot {
        Snapshot {
            xmin: Xid::FIRST_NORMAL,
            xmax: Xid::FIRST_NORMAL,
            csn: Csn(csn),
            own_xid: None,
            curcid: 0,
            wrote_catalog: false,
        }
    }

    fn rel() -> RelFileLocator {
        RelFileLocator { spc_oid: 1663, db_oid: 5, rel_number: 1259 }
    }

    fn desc() -> TupleDesc {
        TupleDesc::new(vec![AttrDesc::fixed(4, 4, true), AttrDesc::TEXT])
    }

    fn row(block: u32, oid: u32, name: &str) -> CatalogRow {
        let oid = oid.to_le_bytes();
        let tuple = form_tuple(&desc(), &[Some(&oid), Some(name.as_bytes())]);
        (ItemPointer::new(block, 1), tuple)
    }

    #[test]
    fn keyed_lookups_find_rows_in_heap_order() {
        let cache = CatCache::default();
        let changes = CatalogChanges::default();
        let rows = vec![row(0, 10, "a"), row(1, 11, "b"), row(2, 12, "a")];
        cache.put(rel(), &snap(5), &changes, 2, rows);
        let entry = cache.get(rel(), &snap(6), &changes).expect("cached");
        let found = entry.matching(&desc(), 1, b"a").unwrap();
        let blocks: Vec<_> = found.iter().map(|&i| entry.row(i).0.block).collect();
        assert_eq!(blocks, vec![0, 2]);
        assert!(entry.matching(&desc(), 0, &99u32.to_le_bytes()).unwrap().is_empty());
    }

    #[test]
    fn a_transaction_that_wrote_catalogs_does_not_fill() {
        let cache = CatCache::default();
        let changes = CatalogChanges::default();
        let mut mine = snap(5);
        mine.wrote_catalog = true;
        let entry = cache.put(rel(), &mine, &changes, 2, vec![row(0, 10, "mine")]);
        assert_eq!(entry.rows().len(), 1);
        assert!(cache.get(rel(), &snap(6), &changes).is_none());
    }

    #[test]
    fn the_later_snapshot_wins() {
        let cache = CatCache::default();
        let changes = CatalogChanges::default();
        cache.put(rel(), &snap(8), &changes, 2, vec![row(0, 10, "new")]);
        cache.put(rel(), &snap(5), &changes, 2, vec![row(0, 10, "old")]);
        let entry = cache.get(rel(), &snap(9), &changes).expect("cached");
        assert_eq!(entry.rows()[0], row(0, 10, "new"));
    }
}
