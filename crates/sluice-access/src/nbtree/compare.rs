//! Scan keys and how they compare with index entries (PostgreSQL's
//! `_bt_compare` and insertion scan keys).
//!
//! A scan key is a prefix of the key columns' values, optionally followed by
//! a heap TID. Whatever it leaves out compares as minus infinity — the key
//! then sorts before every entry that shares its prefix, which positions a
//! search on the first such entry — or, with `beyond` set, as plus infinity,
//! which positions after the last one (PostgreSQL's `nextkey`). An inserter's
//! key is complete, heap TID included, so it names exactly one position.

use super::page::{tuple_at, Opaque};
use super::{BTreeIndex, ColumnOrder, KeyOrder};
use crate::common::IndexTuple;
use crate::error::Result;
use sluice_common::ItemPointer;
use sluice_storage::page::{OffsetNumber, Page};
use std::cmp::Ordering;

/// A position in key order to search for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanKey {
    /// Values of the first key columns, in stored form (`None` = NULL).
    pub values: Vec<Option<Vec<u8>>>,
    /// The heap TID, for a key that names every column.
    pub heap_tid: Option<ItemPointer>,
    /// Missing trailing parts compare as plus infinity instead of minus.
    pub beyond: bool,
}

impl ScanKey {
    /// The key of the leaf entry `values` → `heap_tid`.
    pub fn for_entry(values: &[Option<&[u8]>], heap_tid: ItemPointer) -> ScanKey {
        ScanKey {
            values: values.iter().map(|v| v.map(<[u8]>::to_vec)).collect(),
            heap_tid: Some(heap_tid),
            beyond: false,
        }
    }

    /// The same key without its heap TID: the first position of its value.
    pub fn without_tid(&self) -> ScanKey {
        ScanKey { values: self.values.clone(), heap_tid: None, beyond: false }
    }
}

/// compare_column -- two values of key column `col`, NULLs placed as the
/// column asks and DESC reversing the type's order.
pub fn compare_column(
    order: &dyn KeyOrder,
    col: usize,
    opts: ColumnOrder,
    a: Option<&[u8]>,
    b: Option<&[u8]>,
) -> Ordering {
    let null_side = if opts.nulls_first { Ordering::Less } else { Ordering::Greater };
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => null_side,
        (Some(_), None) => null_side.reverse(),
        (Some(a), Some(b)) => {
            let o = order.compare(col, a, b);
            if opts.descending {
                o.reverse()
            } else {
                o
            }
        }
    }
}

/// compare_tuple -- `key` against the entry `tuple`. After the attributes
/// both have, whatever one of them lacks decides: a pivot's truncated
/// attributes (and missing heap TID) are minus infinity, the key's missing
/// parts are minus infinity too, or plus infinity if it is `beyond`. When both
/// run out together the key is greater: everything left of a truncated pivot
/// is strictly less than it, so a search for that prefix belongs to its right
/// (PostgreSQL's `_bt_compare` makes the same call).
pub fn compare_tuple(index: &BTreeIndex, key: &ScanKey, tuple: &IndexTuple) -> Result<Ordering> {
    let stored = tuple.key_count(index.desc.natts());
    for (col, (k, v)) in key.values.iter().zip(tuple.value_iter(&index.desc)).enumerate() {
        let o = compare_column(&*index.order, col, index.columns[col], k.as_deref(), v?);
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    let key_runs_out = if key.beyond { Ordering::Greater } else { Ordering::Less };
    Ok(match key.values.len().cmp(&stored) {
        Ordering::Greater => Ordering::Greater,
        Ordering::Less => key_runs_out,
        Ordering::Equal if stored < index.desc.natts() => Ordering::Greater,
        Ordering::Equal => match (key.heap_tid, tuple.heap_tid()) {
            (Some(k), Some(t)) => k.cmp(&t),
            (Some(_), None) | (None, None) => Ordering::Greater,
            (None, Some(_)) => key_runs_out,
        },
    })
}

/// separator -- the pivot, pointing at `downlink`, that goes between the
/// leaf entries `last_left` and `first_right` of a split: the shortest prefix
/// of `first_right`'s key that is greater than `last_left`'s, or, if their
/// keys are equal, the whole key with `last_left`'s heap TID (PostgreSQL's
/// `_bt_truncate`).
pub fn separator(
    index: &BTreeIndex,
    last_left: &IndexTuple,
    first_right: &IndexTuple,
    downlink: u32,
) -> Result<Vec<u8>> {
    let (left, right) = (last_left.values(&index.desc)?, first_right.values(&index.desc)?);
    let differs = (0..left.len()).find(|&col| {
        compare_column(&*index.order, col, index.columns[col], left[col], right[col])
            != Ordering::Equal
    });
    Ok(match differs {
        Some(col) => first_right.to_pivot(&index.desc, Some(col + 1), downlink)?,
        None => last_left.to_pivot(&index.desc, None, downlink)?,
    })
}

/// compare_at -- `key` against the entry at `off` of `page`.
pub fn compare_at(
    index: &BTreeIndex,
    key: &ScanKey,
    page: &Page,
    off: OffsetNumber,
) -> Result<Ordering> {
    compare_tuple(index, key, &tuple_at(page, off)?)
}

/// must_move_right -- whether `key` lies beyond `page`'s high key, so a
/// concurrent split moved its place to the right.
pub fn must_move_right(index: &BTreeIndex, key: &ScanKey, page: &Page) -> Result<bool> {
    let opaque = Opaque::of(page);
    if opaque.is_ignored() {
        // Deleted or on its way out: its keys went right (`delete.rs`).
        return Ok(true);
    }
    if opaque.is_rightmost() {
        return Ok(false);
    }
    Ok(compare_at(index, key, page, super::page::P_HIKEY)? == Ordering::Greater)
}

/// first_not_less -- the first data offset whose entry is ≥ `key` (one past
/// the last if none is), by binary search (PostgreSQL's `_bt_binsrch`).
pub fn first_not_less(index: &BTreeIndex, key: &ScanKey, page: &Page) -> Result<OffsetNumber> {
    let mut lo = Opaque::of(page).first_data();
    let mut hi = page.max_offset() + 1;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if compare_at(index, key, page, mid)? == Ordering::Greater {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// child_for -- on an internal page, the offset of the pivot whose child
/// covers `key`: the last pivot less than the key (the first data item, minus
/// infinity, always is).
pub fn child_for(index: &BTreeIndex, key: &ScanKey, page: &Page) -> Result<OffsetNumber> {
    let first = Opaque::of(page).first_data();
    Ok((first_not_less(index, key, page)? - 1).max(first))
}
