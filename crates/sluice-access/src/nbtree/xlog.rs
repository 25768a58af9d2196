//! B-tree WAL records and their redo (PostgreSQL's `nbtxlog.h`, `nbtxlog.c`).
//!
//! Every B-tree record is a list of pages, each with one change:
//!
//! | change     | block data                     | used for                                  |
//! |------------|--------------------------------|-------------------------------------------|
//! | *insert*   | offset + entry                 | a new entry on a page with room           |
//! | *init*     | the whole new page minus its hole (WILL_INIT) | both halves of a split, a new root, the metapage, pages written by a build |
//! | *set prev* | the new left-sibling link      | the right neighbour of a split page       |
//! | *delete*   | the offsets removed, ascending | VACUUM's bulk delete of dead tuples' entries |
//!
//! Page deletion (`delete.rs`) logs its two steps as *init* of every page it
//! changes (parent and leaf; left sibling and leaf) plus *set prev* of the
//! right sibling: a deletion is rare next to inserts, and whole pages keep
//! redo simple.
//!
//! The record's info byte says which operation it was (insert, split, new
//! root, build page), for inspection; redo does not need it, because it
//! applies each page's change the same way. A split writes one record for its
//! whole cascade — both halves, the neighbour, every parent up to the one that
//! takes the new downlink, a new root and metapage if the tree grew — so redo
//! never sees half a split.
//!
//! A split's halves are logged as page contents, which is about twice what
//! PostgreSQL logs (it rebuilds the left half from the old page); splits are
//! rare enough next to inserts that this buys simplicity cheaply.

use crate::engine::Engine;
use crate::error::{AccessError, Result};
use crate::recovery::redo_block;
use sluice_common::{ForkNumber, Lsn, RelFileLocator, RmgrId, Xid, BLCKSZ};
use sluice_storage::buffer::BufferPool;
use sluice_storage::page::{OffsetNumber, Page};
use sluice_wal::{BlockRef, DecodedRecord, RecordBuilder, BLOCK_WILL_INIT};

/// An entry inserted without a split.
pub const XLOG_BTREE_INSERT: u8 = 0x00;
/// A page split and its cascade.
pub const XLOG_BTREE_SPLIT: u8 = 0x30;
/// The first root of an empty index.
pub const XLOG_BTREE_NEWROOT: u8 = 0xA0;
/// Entries of dead heap tuples removed from a leaf (VACUUM).
pub const XLOG_BTREE_VACUUM: u8 = 0x80;
/// Page deletion's first step: a leaf's downlink removed, the leaf half-dead.
pub const XLOG_BTREE_MARK_PAGE_HALFDEAD: u8 = 0xB0;
/// Page deletion's second step: a half-dead leaf unlinked and deleted.
pub const XLOG_BTREE_UNLINK_PAGE: u8 = 0x90;
/// The metapage's count of deleted pages waiting to be recycled.
pub const XLOG_BTREE_META_CLEANUP: u8 = 0xE0;
/// A page written whole (index build, metapage initialisation).
pub const XLOG_BTREE_NEWPAGE: u8 = 0xF0;

const OP_INSERT: u8 = 1;
const OP_INIT: u8 = 2;
const OP_SET_PREV: u8 = 3;
const OP_DELETE: u8 = 4;

/// encode_insert -- block data for inserting `tuple` at `off`.
pub fn encode_insert(off: OffsetNumber, tuple: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(3 + tuple.len());
    data.push(OP_INSERT);
    data.extend_from_slice(&off.to_le_bytes());
    data.extend_from_slice(tuple);
    data
}

/// encode_init -- block data recreating `page` (its hole left out).
fn encode_init(page: &Page) -> Vec<u8> {
    let (hole_off, hole_len) = page.hole();
    let bytes = page.as_bytes();
    let (lo, hi) = (hole_off as usize, hole_off as usize + hole_len as usize);
    let mut data = Vec::with_capacity(5 + BLCKSZ - hole_len as usize);
    data.push(OP_INIT);
    data.extend_from_slice(&hole_off.to_le_bytes());
    data.extend_from_slice(&hole_len.to_le_bytes());
    data.extend_from_slice(&bytes[..lo]);
    data.extend_from_slice(&bytes[hi..]);
    data
}

/// One page of a record being assembled: what changed and, for a change in
/// place, a copy of the page to image if the checkpoint rule asks for one.
struct PendingBlock {
    block: u32,
    data: Vec<u8>,
    image: Option<(Box<Page>, (u16, u16))>,
}

/// A multi-page record assembled while a split cascades upward, logged once
/// the last page is changed.
#[derive(Default)]
pub struct PendingRecord {
    blocks: Vec<PendingBlock>,
}

impl PendingRecord {
    /// init_page -- `page` at `block` was rewritten whole.
    pub fn init_page(&mut self, block: u32, page: &Page) {
        self.blocks.push(PendingBlock { block, data: encode_init(page), image: None });
    }

    /// changed -- `page` at `block` (as it is now) received `data`'s change.
    fn changed(&mut self, block: u32, page: &Page, data: Vec<u8>) {
        let copy = Box::new(page.clone());
        let hole = page.hole();
        self.blocks.push(PendingBlock { block, data, image: Some((copy, hole)) });
    }

    /// inserted -- `tuple` went to `off` of `page` at `block`.
    pub fn inserted(&mut self, block: u32, page: &Page, off: OffsetNumber, tuple: &[u8]) {
        self.changed(block, page, encode_insert(off, tuple));
    }

    /// prev_set -- `page` at `block` now has left sibling `prev`.
    pub fn prev_set(&mut self, block: u32, page: &Page, prev: u32) {
        let mut data = vec![OP_SET_PREV];
        data.extend_from_slice(&prev.to_le_bytes());
        self.changed(block, page, data);
    }

    /// items_deleted -- the entries at `offsets` (ascending, as they were
    /// before the deletion) were removed from `page` at `block`.
    pub fn items_deleted(&mut self, block: u32, page: &Page, offsets: &[OffsetNumber]) {
        let mut data = vec![OP_DELETE];
        data.extend(offsets.iter().flat_map(|o| o.to_le_bytes()));
        self.changed(block, page, data);
    }

    /// log -- inserts the record for relation `rel`; returns its end LSN, to
    /// be stamped on every page in it.
    pub fn log(self, engine: &Engine, rel: RelFileLocator, info: u8) -> Result<Lsn> {
        let mut record = RecordBuilder::new(RmgrId::Btree, info, Xid::INVALID);
        for (id, b) in self.blocks.iter().enumerate() {
            let mut block =
                BlockRef::new(id as u8, rel, ForkNumber::Main, b.block).with_data(b.data.clone());
            block = match &b.image {
                Some((page, hole)) => block.with_page(page.as_bytes(), *hole),
                None => block.with_flags(BLOCK_WILL_INIT),
            };
            record = record.with_block(block);
        }
        Ok(engine.wal().insert(&record)?)
    }
}

/// redo -- replays a B-tree record: each page's change, under the page redo
/// rule of `recovery.rs`.
pub fn redo(pool: &BufferPool, record: &DecodedRecord) -> Result<()> {
    for id in 0..record.blocks.len() {
        redo_block(pool, record, id as u8, apply)?;
    }
    Ok(())
}

fn corrupt(what: &str) -> AccessError {
    AccessError::Corrupt(format!("btree redo: {what}"))
}

/// Applies one page's change from its block data.
fn apply(page: &mut Page, data: &[u8]) -> Result<()> {
    let (&op, rest) = data.split_first().ok_or_else(|| corrupt("empty block data"))?;
    match op {
        OP_INSERT if rest.len() > 2 => {
            let off = u16::from_le_bytes([rest[0], rest[1]]);
            if !page.insert_item(off, &rest[2..]) {
                return Err(corrupt("entry does not fit"));
            }
        }
        OP_INIT if rest.len() >= 4 => {
            let hole_off = u16::from_le_bytes([rest[0], rest[1]]) as usize;
            let hole_len = u16::from_le_bytes([rest[2], rest[3]]) as usize;
            let body = &rest[4..];
            if hole_off + hole_len > BLCKSZ || body.len() != BLCKSZ - hole_len {
                return Err(corrupt("page image of the wrong size"));
            }
            let bytes = page.as_bytes_mut();
            bytes[..hole_off].copy_from_slice(&body[..hole_off]);
            bytes[hole_off..hole_off + hole_len].fill(0);
            bytes[hole_off + hole_len..].copy_from_slice(&body[hole_off..]);
        }
        OP_SET_PREV if rest.len() == 4 => {
            let mut opaque = super::page::Opaque::of(page);
            opaque.prev = u32::from_le_bytes(rest.try_into().expect("4 bytes"));
            opaque.store(page);
        }
        OP_DELETE if rest.len().is_multiple_of(2) => {
            let offsets: Vec<OffsetNumber> =
                rest.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            if offsets.iter().any(|&o| o == 0 || o > page.max_offset()) {
                return Err(corrupt("deleted entry is not on the page"));
            }
            page.delete_items(&offsets);
        }
        _ => return Err(corrupt("unknown change")),
    }
    Ok(())
}
