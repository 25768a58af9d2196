//! Index-only scans (PostgreSQL's `nodeIndexonlyscan.c`).
//!
//! When an index holds every column a query reads from a table, the rows can
//! be built from the index entries alone. What the index cannot say is
//! whether the heap version an entry points at is visible to the
//! statement's snapshot: entries carry no xmin/xmax. The visibility map
//! answers that for whole pages — a page marked all-visible holds only
//! versions every snapshot sees — so an entry pointing into such a page is
//! returned as it is, and only entries into other pages fetch their heap
//! version to check it (`Heap Fetches` in EXPLAIN ANALYZE). Right after
//! VACUUM most pages are all-visible and the heap is hardly touched.
//!
//! The row handed up has the table's layout: the indexed columns filled
//! from the entry, the others NULL — the planner only chooses this scan
//! when nothing above reads them.
//!
//! Invariant relied on: a page's all-visible bit is cleared (under the
//! page's exclusive lock) before any change to the page becomes visible to
//! anyone, so a set bit read after the index entry was read still vouches
//! for the version the entry points at.

use super::host::ExecHost;
use super::indexscan::{IndexPath, IndexRows};
use super::plan::instrument::{self, Counter};
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use sluice_access::common::IndexTuple;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_types::storage::from_storage;
use sluice_types::{Datum, SqlType};

/// The rows of an index-only scan.
pub struct IndexOnlyRows<'e> {
    index: IndexRows<'e>,
    /// For each key of the index: the table column it fills, and its type.
    columns: Vec<(usize, SqlType)>,
    width: usize,
    /// The EXPLAIN ANALYZE key of the plan node.
    key: usize,
}

impl<'e> IndexOnlyRows<'e> {
    /// start -- positions the scan of `path`; `key` is its plan node.
    pub fn start(
        engine: &'e Engine,
        rel: &RelationDesc,
        path: &IndexPath,
        ctx: VisibilityContext<'e>,
        host: &mut ExecHost,
        key: usize,
    ) -> Result<IndexOnlyRows<'e>> {
        let index = IndexRows::start(engine, rel, path, ctx, host)?;
        let columns = path
            .index
            .keys
            .iter()
            .map(|&k| (k as usize - 1, rel.columns[k as usize - 1].ty))
            .collect();
        Ok(IndexOnlyRows { index, columns, width: rel.columns.len(), key })
    }

    /// next_row -- the next visible row, in index order.
    pub fn next_row(&mut self) -> Result<Option<Vec<Datum>>> {
        while let Some(tid) = self.index.next_entry()? {
            if !self.index.page_all_visible(tid.block)? {
                instrument::count(self.key, Counter::HeapFetches, 1);
                if self.index.fetch(tid)?.is_none() {
                    continue;
                }
            }
            return self.row_of(self.index.entry()).map(Some);
        }
        Ok(None)
    }

    /// The table row an entry stands for (unindexed columns NULL).
    fn row_of(&self, entry: &[u8]) -> Result<Vec<Datum>> {
        let tuple = IndexTuple::new(entry).map_err(sluice_access::AccessError::from)?;
        let values =
            tuple.values(&self.index.btree().desc).map_err(sluice_access::AccessError::from)?;
        let mut row = vec![Datum::Null; self.width];
        for (&(column, ty), value) in self.columns.iter().zip(values) {
            if let Some(bytes) = value {
                row[column] = from_storage(ty, bytes).map_err(SqlError::from)?;
            }
        }
        Ok(row)
    }
}
