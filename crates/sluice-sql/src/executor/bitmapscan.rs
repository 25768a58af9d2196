//! Bitmap heap scans (PostgreSQL's `nodeBitmapIndexscan.c` and
//! `nodeBitmapHeapscan.c`).
//!
//! A plain index scan visits the heap in index order: with a key that is not
//! correlated with the table's physical order, every entry can cost a random
//! page read, and a page holding several matches is read several times. A
//! bitmap scan splits the work in two. The Bitmap Index Scan walks the index
//! between the bounds and collects the heap addresses of every entry; the
//! Bitmap Heap Scan sorts them and reads the heap in block order, each page
//! once (consecutive fetches of one page hit the same buffer), so a large
//! fraction of the table costs about a sequential read.
//!
//! PostgreSQL keeps the addresses in a TIDBitmap that turns lossy (one bit
//! per page, rows rechecked) past `work_mem`; sluice keeps an exact sorted
//! list, so no page is ever lossy and `Heap Blocks:` only ever shows
//! `exact=`. The whole WHERE clause is still evaluated on every row by the
//! filter above (EXPLAIN's `Recheck Cond`), and each version is checked
//! against the statement's snapshot when it is fetched.
//!
//! The index is read completely before the first heap row is returned, as
//! in PostgreSQL; nothing is locked beyond the buffer pins of the moment.

use super::host::ExecHost;
use super::indexscan::{IndexPath, IndexRows};
use super::plan::instrument::{self, Counter};
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::deform_row;
use crate::error::Result;
use crate::expr::EvalHost;
use sluice_access::common::TupleDesc;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::ItemPointer;
use sluice_storage::buffer::BufferUsage;
use sluice_types::{Datum, SqlType};
use std::time::Instant;

/// How many index entries are collected between two interrupt checks.
const INTERRUPT_INTERVAL: usize = 4096;

/// The rows of a bitmap heap scan, in physical order.
pub struct BitmapRows<'e> {
    index: IndexRows<'e>,
    /// The heap addresses the index found, sorted and without duplicates.
    tids: Vec<ItemPointer>,
    next: usize,
    desc: TupleDesc,
    types: Vec<SqlType>,
}

impl<'e> BitmapRows<'e> {
    /// start -- runs the Bitmap Index Scan of `path` to the end and prepares
    /// the heap pass. `key` is the Bitmap Heap Scan's plan node, whose
    /// EXPLAIN ANALYZE counters (and its index scan's) this fills.
    pub fn start(
        engine: &'e Engine,
        rel: &RelationDesc,
        path: &IndexPath,
        ctx: VisibilityContext<'e>,
        host: &mut ExecHost,
        key: usize,
    ) -> Result<BitmapRows<'e>> {
        let clock = Instant::now();
        let buffers = BufferUsage::current();
        let mut index = IndexRows::start(engine, rel, path, ctx, host)?;
        let mut tids = Vec::new();
        while let Some(tid) = index.next_entry()? {
            tids.push(tid);
            if tids.len() % INTERRUPT_INTERVAL == 0 {
                host.check_interrupts()?;
            }
        }
        let buffers = BufferUsage::current() - buffers;
        let rows = tids.len() as u64;
        instrument::count_run(instrument::key_of(path), rows, clock.elapsed(), buffers);
        tids.sort_unstable();
        tids.dedup();
        instrument::count(key, Counter::ExactBlocks, distinct_blocks(&tids));
        Ok(BitmapRows { index, tids, next: 0, desc: rel.tuple_desc(), types: rel.types() })
    }

    /// next_tuple -- the next visible heap version and its address, in
    /// heap order.
    pub fn next_tuple(&mut self) -> Result<Option<(ItemPointer, Vec<u8>)>> {
        while let Some(&tid) = self.tids.get(self.next) {
            self.next += 1;
            if let Some(found) = self.index.fetch(tid)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// next_row -- like [`BitmapRows::next_tuple`], decoded.
    pub fn next_row(&mut self) -> Result<Option<Vec<Datum>>> {
        let Some((_, tuple)) = self.next_tuple()? else { return Ok(None) };
        Ok(Some(deform_row(&self.desc, &self.types, &tuple)?))
    }
}

/// The number of heap pages among sorted addresses.
fn distinct_blocks(tids: &[ItemPointer]) -> u64 {
    let mut blocks = tids.iter().map(|t| t.block).collect::<Vec<_>>();
    blocks.dedup();
    blocks.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_page_once() {
        let tid = |block, offset| ItemPointer { block, offset };
        assert_eq!(distinct_blocks(&[]), 0);
        assert_eq!(distinct_blocks(&[tid(0, 1), tid(0, 2), tid(3, 1), tid(7, 4), tid(7, 5)]), 3);
    }
}
