//! The B-tree access method (PostgreSQL's `access/nbtree`): Lehman and Yao's
//! high-concurrency B-link tree, as PostgreSQL's `src/backend/access/nbtree/README`
//! describes it.
//!
//! # Shape
//!
//! Block 0 is the metapage; it names the root. Every other page is a node:
//! leaves (level 0) hold one entry per heap tuple — the key and the tuple's
//! address — and internal pages hold pivots: separator keys with a downlink to
//! the child covering the keys up to that separator. Each level is a doubly
//! linked list (`btpo_prev`, `btpo_next`), and every page except the rightmost
//! of its level has a *high key*, an upper bound for the keys on it, in its
//! first line pointer.
//!
//! ```text
//!                         meta ──► root [ -∞→1 | (k5,t)→4 ]
//!                                        /              \
//!        leaf 1 [hk=(k5,t) | k1 k2 k3 k5 ] ──next──► leaf 4 [ k6 k7 k8 ]
//! ```
//!
//! Entries are ordered by (key, heap TID), so every entry is distinct, and a
//! page's high key separates it from its right sibling: entries on the page
//! are ≤ it, entries to its right greater. High keys and pivots keep only the
//! key prefix that separates (`common/indextuple.rs` explains truncation). NULLs sort last by default, first with NULLS FIRST; DESC columns
//! reverse the comparison.
//!
//! # Why searches never wait for splits
//!
//! A page split moves the upper half of a page to a new right sibling and links
//! it in *before* the parent learns about it. A search that reads a page holds
//! only that page's lock; if the key it seeks is greater than the page's high
//! key, the key moved right, and the search follows the right link (the "move
//! right" of Lehman and Yao). So readers hold one lock at a time and never
//! block on a split in progress.
//!
//! # Locking
//!
//! Page locks are the buffer content locks. Readers take them shared, one page
//! at a time. An inserter descends with shared locks, locks the leaf
//! exclusively (moving right as needed) and, if it must split, keeps the pages
//! it changed locked while it locks the parent — always child before parent
//! and left before right, the order that makes deadlock impossible. A split
//! and its cascade up to the page that absorbs the new downlink (or a new
//! root) are one WAL record, so a crash never leaves a page without its
//! downlink and there is no "incomplete split" to finish later (PostgreSQL
//! logs each level separately and repairs incomplete splits on the next
//! insert).
//!
//! Unique checks lock the first leaf page where the key could be and keep it
//! locked while reading the equal keys to its right; a second inserter of the
//! same key must lock that same page first, so two can never both see "no
//! duplicate". A duplicate whose inserter or deleter is still running is
//! waited for (without page locks held) and the insert starts over.
//!
//! * `page.rs` — the special space, metapage and page helpers.
//! * `compare.rs` — scan keys and their comparison with entries.
//! * `search.rs` — descending the tree and moving right.
//! * `insert.rs` — inserting and unique checks.
//! * `split.rs` — page splits, parent downlinks and new roots.
//! * `build.rs` — building an index bottom-up from sorted entries.
//! * `scan.rs` — forward and backward scans over the leaves.
//! * `vacuum.rs` — VACUUM's bulk delete of dead tuples' entries.
//! * `delete.rs` — deleting emptied leaves and recycling deleted pages.
//! * `xlog.rs` — WAL records and redo.
//!
//! Not here yet: deletion of internal pages more than one level above an
//! emptied leaf, deduplication into posting lists.

mod build;
mod compare;
pub mod delete;
mod insert;
pub mod page;
mod scan;
mod search;
mod split;
mod vacuum;
pub mod xlog;

pub use build::{btree_build, sort_entries, BuildEntry};
pub use compare::ScanKey;
pub use insert::{btree_insert, btree_probe_unique, UniqueCheck};
pub use scan::BTreeScan;
pub use vacuum::{btree_bulk_delete, btree_vacuum_cleanup, BulkDeleteResult};

use crate::common::TupleDesc;
use sluice_common::RelFileLocator;
use std::cmp::Ordering;
use std::sync::Arc;

/// How the values of one key column are ordered; the SQL layer knows the
/// types, so it supplies the comparison (PostgreSQL's B-tree support
/// function 1, `BTORDER_PROC`).
pub trait KeyOrder: Send + Sync + std::fmt::Debug {
    /// Compares two non-NULL values of key column `col` in their stored form.
    fn compare(&self, col: usize, a: &[u8], b: &[u8]) -> Ordering;
}

/// The per-column options of an index key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColumnOrder {
    /// DESC.
    pub descending: bool,
    /// NULLS FIRST (the default with DESC).
    pub nulls_first: bool,
}

/// The default leaf fillfactor (PostgreSQL's BTREE_DEFAULT_FILLFACTOR).
pub const BTREE_DEFAULT_FILLFACTOR: u8 = 90;
/// How full internal pages are left by builds and rightmost splits
/// (BTREE_NONLEAF_FILLFACTOR).
pub const BTREE_NONLEAF_FILLFACTOR: u8 = 70;

/// The facts about a B-tree index the access method needs.
#[derive(Clone, Debug)]
pub struct BTreeIndex {
    /// Where its file is.
    pub locator: RelFileLocator,
    /// The key columns' physical description.
    pub desc: TupleDesc,
    /// ASC/DESC and NULLS FIRST/LAST per key column.
    pub columns: Vec<ColumnOrder>,
    /// How the key values compare.
    pub order: Arc<dyn KeyOrder>,
    /// Leaf fillfactor (10..=100): how full builds and rightmost splits leave
    /// leaf pages.
    pub fillfactor: u8,
}
