//! Index tuples: the entries of B-tree pages (PostgreSQL's `itup.h` and
//! `access/common/indextuple.c`).
//!
//! An index tuple is a key and the address of something: on a leaf page the
//! heap tuple (row version) the key was taken from, on an internal page the
//! child page below. Its header is 8 bytes, then an optional null bitmap, then
//! the key values laid out exactly as in a heap tuple's data area (same
//! alignment and varlena rules, so [`super::heaptuple`] does the work):
//!
//! ```text
//!  0          4        6        8            12      16 (or 8 without NULLs)
//!  | block    | offset | t_info | null bitmap | pad   | key values ...
//!  |<-- t_tid -------->|        |<-- only if a key is NULL -->|
//! ```
//!
//! `t_info` holds the tuple size (13 bits) and three flags: any NULL, any
//! varlena, and *pivot*. A key bigint takes 8 + 8 = 16 bytes, and a short
//! text `'name-123456'` 8 + 12 → 24 after MAXALIGN: the same as PostgreSQL,
//! which is what keeps index sizes comparable.
//!
//! # Pivot tuples
//!
//! Internal pages and high keys hold *pivot* tuples: separators between
//! pages rather than pointers to rows. Their `t_tid` block is the downlink
//! (child page), and their `t_tid` offset counts the key attributes kept
//! (bits 0..12) and says whether a heap TID follows (bit 12), as PostgreSQL's
//! do. The B-tree orders entries by (key, heap TID), so every entry is
//! distinct (PostgreSQL 12's "heapkeyspace"), and a separator needs only the
//! key prefix that tells the last entry on the left from the first on the
//! right — the attributes after it are *truncated* and count as minus
//! infinity. Only when the two entries' keys are equal does the separator
//! keep every attribute and the left entry's heap TID, in its last 6 bytes.
//! The keyless "minus infinity" first item of an internal page keeps nothing.

use super::error::{corrupt, Result};
use super::heaptuple::{data_end, data_values, fill_data};
use super::tupdesc::TupleDesc;
use sluice_common::{maxalign, ItemPointer};

/// Size of the fixed header (t_tid and t_info).
pub const INDEX_HEADER_SIZE: usize = 8;
/// Bytes of the null bitmap when present (room for [`INDEX_MAX_KEYS`] bits).
const INDEX_BITMAP_SIZE: usize = 4;
/// The most key columns an index may have (PostgreSQL's INDEX_MAX_KEYS).
pub const INDEX_MAX_KEYS: usize = 32;
/// The t_info bits that hold the size.
const INDEX_SIZE_MASK: u16 = 0x1FFF;
/// t_info flag: this is a pivot tuple (see the module doc).
const INDEX_PIVOT: u16 = 0x2000;
/// t_info flag: some key is a varlena.
const INDEX_VAR_MASK: u16 = 0x4000;
/// t_info flag: some key is NULL; a bitmap follows the header.
const INDEX_NULL_MASK: u16 = 0x8000;
/// Size of the heap TID a pivot keeps at its end.
const PIVOT_TID_SIZE: usize = 6;
/// Pivot `t_tid` offset bits counting the key attributes kept.
const PIVOT_NATTS_MASK: u16 = 0x0FFF;
/// Pivot `t_tid` offset flag: a heap TID follows the key.
const PIVOT_HEAP_TID: u16 = 0x1000;
/// Leaf entry `t_tid` offset flag: the entry is *killed* — an index scan
/// found every version it leads to dead to every snapshot, so scans skip it
/// without visiting the heap (PostgreSQL's LP_DEAD hint on index line
/// pointers; a heap offset never reaches this bit, and sluice's line
/// pointers without the normal flag keep no storage).
const LEAF_KILLED: u16 = 0x8000;

/// Where the key values start: after the header, and after the bitmap
/// (MAXALIGNed) if there is one.
fn data_offset(has_nulls: bool) -> usize {
    if has_nulls {
        maxalign(INDEX_HEADER_SIZE + INDEX_BITMAP_SIZE)
    } else {
        INDEX_HEADER_SIZE
    }
}

fn write_tid(tuple: &mut [u8], at: usize, tid: ItemPointer) {
    tuple[at..at + 4].copy_from_slice(&tid.block.to_le_bytes());
    tuple[at + 4..at + 6].copy_from_slice(&tid.offset.to_le_bytes());
}

fn read_tid(tuple: &[u8], at: usize) -> ItemPointer {
    let block = u32::from_le_bytes(tuple[at..at + 4].try_into().expect("4 bytes"));
    ItemPointer::new(block, u16::from_le_bytes([tuple[at + 4], tuple[at + 5]]))
}

/// What makes a tuple a pivot: it is one, and keeps this heap TID (if any).
#[derive(Clone, Copy)]
struct Pivot(Option<ItemPointer>);

/// form -- a tuple of `values` (a prefix of `desc`'s columns for a pivot)
/// with `t_tid` = `tid`. Panics if the values do not match `desc`.
fn form(
    desc: &TupleDesc,
    values: &[Option<&[u8]>],
    mut tid: ItemPointer,
    pivot: Option<Pivot>,
) -> Vec<u8> {
    assert!(values.len() <= INDEX_MAX_KEYS, "too many index columns");
    let has_nulls = values.iter().any(Option::is_none);
    let start = data_offset(has_nulls);
    let end = data_end(desc, values, start);
    let pivot_tid = pivot.and_then(|Pivot(heap_tid)| heap_tid);
    let size = match pivot_tid {
        Some(_) => end.next_multiple_of(2) + PIVOT_TID_SIZE,
        None => end,
    };
    if pivot.is_some() {
        let flag = if pivot_tid.is_some() { PIVOT_HEAP_TID } else { 0 };
        tid.offset = values.len() as u16 | flag;
    }
    let mut tuple = vec![0u8; size];
    let bitmap = has_nulls.then_some(INDEX_HEADER_SIZE);
    let mut info = size as u16;
    if fill_data(&mut tuple, desc, values, bitmap, start) {
        info |= INDEX_VAR_MASK;
    }
    if has_nulls {
        info |= INDEX_NULL_MASK;
    }
    if pivot.is_some() {
        info |= INDEX_PIVOT;
    }
    if let Some(heap_tid) = pivot_tid {
        write_tid(&mut tuple, size - PIVOT_TID_SIZE, heap_tid);
    }
    write_tid(&mut tuple, 0, tid);
    tuple[6..8].copy_from_slice(&info.to_le_bytes());
    tuple
}

/// form_index_tuple -- a leaf entry: `values` pointing at heap tuple `tid`
/// (PostgreSQL's index_form_tuple). The result is unpadded.
pub fn form_index_tuple(desc: &TupleDesc, values: &[Option<&[u8]>], tid: ItemPointer) -> Vec<u8> {
    form(desc, values, tid, None)
}

/// The size [`form_index_tuple`] would produce, MAXALIGNed as on a page.
pub fn index_tuple_size(desc: &TupleDesc, values: &[Option<&[u8]>]) -> usize {
    let has_nulls = values.iter().any(Option::is_none);
    maxalign(data_end(desc, values, data_offset(has_nulls)))
}

/// minus_infinity_pivot -- the keyless first item of an internal page,
/// pointing at child `downlink`.
pub fn minus_infinity_pivot(downlink: u32) -> Vec<u8> {
    form(&TupleDesc::new(Vec::new()), &[], ItemPointer::new(downlink, 0), Some(Pivot(None)))
}

/// mark_killed -- kills the leaf entry `bytes` if it still points at `heap_tid`
/// (the hint is set without WAL, under the page's exclusive lock). Returns
/// whether it changed anything.
pub fn mark_killed(bytes: &mut [u8], heap_tid: ItemPointer) -> Result<bool> {
    let tuple = IndexTuple::new(bytes)?;
    if tuple.is_pivot() || tuple.is_killed() || tuple.tid() != heap_tid {
        return Ok(false);
    }
    write_tid(bytes, 0, ItemPointer::new(heap_tid.block, heap_tid.offset | LEAF_KILLED));
    Ok(true)
}

/// A read-only view of an index tuple's bytes.
#[derive(Clone, Copy, Debug)]
pub struct IndexTuple<'a> {
    bytes: &'a [u8],
}

impl<'a> IndexTuple<'a> {
    /// new -- checks that `bytes` hold at least the header and the size it
    /// claims.
    pub fn new(bytes: &'a [u8]) -> Result<IndexTuple<'a>> {
        if bytes.len() < INDEX_HEADER_SIZE {
            return Err(corrupt!("index tuple of {} bytes", bytes.len()));
        }
        let tuple = IndexTuple { bytes };
        let size = tuple.size();
        if size < INDEX_HEADER_SIZE || size > bytes.len() {
            return Err(corrupt!("index tuple claims {size} bytes, has {}", bytes.len()));
        }
        Ok(IndexTuple { bytes: &bytes[..size] })
    }

    fn info(&self) -> u16 {
        u16::from_le_bytes([self.bytes[6], self.bytes[7]])
    }

    /// The tuple's size without page padding.
    pub fn size(&self) -> usize {
        (self.info() & INDEX_SIZE_MASK) as usize
    }

    /// The bytes, exactly [`IndexTuple::size`] of them.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// t_tid: the heap tuple of a leaf entry; the child page (block) of a pivot.
    pub fn tid(&self) -> ItemPointer {
        let tid = read_tid(self.bytes, 0);
        match self.is_pivot() {
            true => tid,
            false => ItemPointer::new(tid.block, tid.offset & !LEAF_KILLED),
        }
    }

    /// Whether this leaf entry is killed (see [`mark_killed`]).
    pub fn is_killed(&self) -> bool {
        !self.is_pivot() && read_tid(self.bytes, 0).offset & LEAF_KILLED != 0
    }

    /// Whether this is a pivot tuple.
    pub fn is_pivot(&self) -> bool {
        self.info() & INDEX_PIVOT != 0
    }

    /// Whether this is the keyless "minus infinity" pivot (no key attribute
    /// kept).
    pub fn is_minus_infinity(&self) -> bool {
        self.is_pivot() && self.tid().offset & PIVOT_NATTS_MASK == 0
    }

    /// How many key attributes the tuple has: all of `natts` for a leaf
    /// entry, those kept for a pivot.
    pub fn key_count(&self, natts: usize) -> usize {
        if self.is_pivot() {
            (self.tid().offset & PIVOT_NATTS_MASK) as usize
        } else {
            natts
        }
    }

    /// The child page of a pivot.
    pub fn downlink(&self) -> u32 {
        self.tid().block
    }

    /// The heap TID that orders this entry among equal keys: its own t_tid
    /// for a leaf entry, the kept one for a pivot (`None` for minus infinity).
    pub fn heap_tid(&self) -> Option<ItemPointer> {
        if !self.is_pivot() {
            return Some(self.tid());
        }
        let kept = self.tid().offset & PIVOT_HEAP_TID != 0;
        kept.then(|| read_tid(self.bytes, self.size() - PIVOT_TID_SIZE))
    }

    fn has_kept_tid(&self) -> bool {
        self.is_pivot() && self.tid().offset & PIVOT_HEAP_TID != 0
    }

    /// values -- the key values (`None` = NULL), borrowed from the tuple:
    /// every column of a leaf entry, the kept ones of a pivot.
    pub fn values(&self, desc: &TupleDesc) -> Result<Vec<Option<&'a [u8]>>> {
        self.value_iter(desc).collect()
    }

    /// value_iter -- the key values one at a time (see [`IndexTuple::values`]),
    /// for comparisons that stop at the first column that differs.
    pub fn value_iter<'d>(
        &self,
        desc: &'d TupleDesc,
    ) -> impl Iterator<Item = Result<Option<&'a [u8]>>> + 'd
    where
        'a: 'd,
    {
        let natts = self.key_count(desc.natts());
        let has_nulls = natts > 0 && self.info() & INDEX_NULL_MASK != 0;
        let bitmap = has_nulls
            .then(|| &self.bytes[INDEX_HEADER_SIZE..INDEX_HEADER_SIZE + INDEX_BITMAP_SIZE]);
        let end = if self.has_kept_tid() { self.size() - PIVOT_TID_SIZE } else { self.size() };
        data_values(desc, &self.bytes[..end], bitmap, data_offset(has_nulls), natts)
    }

    /// to_pivot -- a separator pointing at `downlink` that keeps the first
    /// `keep` key attributes of this tuple (`None`: all of them and its heap
    /// TID).
    pub fn to_pivot(
        &self,
        desc: &TupleDesc,
        keep: Option<usize>,
        downlink: u32,
    ) -> Result<Vec<u8>> {
        let values = self.values(desc)?;
        let tid = ItemPointer::new(downlink, 0);
        if let Some(keep) = keep {
            return Ok(form(desc, &values[..keep.min(values.len())], tid, Some(Pivot(None))));
        }
        let heap_tid = self.heap_tid().ok_or_else(|| corrupt!("pivot without a heap TID"))?;
        Ok(form(desc, &values, tid, Some(Pivot(Some(heap_tid)))))
    }
}

/// set_downlink -- points the pivot in `bytes` at child `block`.
pub fn set_downlink(bytes: &mut [u8], block: u32) {
    bytes[0..4].copy_from_slice(&block.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::AttrDesc;

    fn desc() -> TupleDesc {
        TupleDesc::new(vec![AttrDesc::INT8, AttrDesc::varlena(4)])
    }

    #[test]
    fn killed_leaf_entries_keep_their_heap_tid() {
        let d = TupleDesc::new(vec![AttrDesc::INT8]);
        let mut t = form_index_tuple(&d, &[Some(&5i64.to_le_bytes())], ItemPointer::new(7, 3));
        assert!(!IndexTuple::new(&t).unwrap().is_killed());
        assert!(!mark_killed(&mut t, ItemPointer::new(7, 4)).unwrap(), "another tuple's entry");
        assert!(mark_killed(&mut t, ItemPointer::new(7, 3)).unwrap());
        assert!(!mark_killed(&mut t, ItemPointer::new(7, 3)).unwrap(), "already killed");
        let killed = IndexTuple::new(&t).unwrap();
        assert!(killed.is_killed());
        assert_eq!(killed.tid(), ItemPointer::new(7, 3));
        assert_eq!(killed.heap_tid(), Some(ItemPointer::new(7, 3)));
        let mut pivot = killed.to_pivot(&d, None, 9).unwrap();
        assert!(
            !mark_killed(&mut pivot, ItemPointer::new(9, 0)).unwrap(),
            "pivots are never killed"
        );
        assert_eq!(IndexTuple::new(&pivot).unwrap().heap_tid(), Some(ItemPointer::new(7, 3)));
    }

    #[test]
    fn leaf_tuples_match_postgres_sizes() {
        let d = TupleDesc::new(vec![AttrDesc::INT8]);
        let t = form_index_tuple(&d, &[Some(&5i64.to_le_bytes())], ItemPointer::new(7, 3));
        assert_eq!(t.len(), 16);
        let d = TupleDesc::new(vec![AttrDesc::varlena(4)]);
        assert_eq!(index_tuple_size(&d, &[Some(b"name-123456")]), 24);
    }

    #[test]
    fn values_round_trip_with_nulls() {
        let t = form_index_tuple(&desc(), &[None, Some(b"abc")], ItemPointer::new(1, 2));
        let it = IndexTuple::new(&t).unwrap();
        assert_eq!(it.values(&desc()).unwrap(), vec![None, Some(&b"abc"[..])]);
        assert_eq!(it.tid(), ItemPointer::new(1, 2));
        assert!(!it.is_pivot());
    }

    #[test]
    fn pivots_keep_key_and_heap_tid() {
        let key = 42i64.to_le_bytes();
        let leaf = form_index_tuple(&desc(), &[Some(&key), Some(b"x")], ItemPointer::new(9, 4));
        let mut pivot = IndexTuple::new(&leaf).unwrap().to_pivot(&desc(), None, 17).unwrap();
        let p = IndexTuple::new(&pivot).unwrap();
        assert!(p.is_pivot() && !p.is_minus_infinity());
        assert_eq!(p.downlink(), 17);
        assert_eq!(p.heap_tid(), Some(ItemPointer::new(9, 4)));
        assert_eq!(p.values(&desc()).unwrap(), vec![Some(&key[..]), Some(&b"x"[..])]);
        set_downlink(&mut pivot, 3);
        assert_eq!(IndexTuple::new(&pivot).unwrap().downlink(), 3);
        let short = IndexTuple::new(&leaf).unwrap().to_pivot(&desc(), Some(1), 8).unwrap();
        let short = IndexTuple::new(&short).unwrap();
        assert_eq!(short.size(), 16, "a truncated pivot keeps only the first column");
        assert_eq!(short.heap_tid(), None);
        assert_eq!(short.values(&desc()).unwrap(), vec![Some(&key[..])]);
        let m = minus_infinity_pivot(5);
        let m = IndexTuple::new(&m).unwrap();
        assert!(m.is_minus_infinity() && m.heap_tid().is_none() && m.downlink() == 5);
    }

    #[test]
    fn truncated_bytes_are_corrupt() {
        assert!(IndexTuple::new(&[0; 4]).is_err());
        let t = form_index_tuple(&desc(), &[None, Some(b"abc")], ItemPointer::new(1, 2));
        assert!(IndexTuple::new(&t[..t.len() - 1]).is_err());
    }
}
