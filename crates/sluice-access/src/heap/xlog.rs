//! Heap WAL records and their redo (PostgreSQL's `heapam_xlog.h` and the redo
//! half of `heapam.c`).
//!
//! | info              | blocks                         | main data                 |
//! |-------------------|--------------------------------|---------------------------|
//! | `XLOG_HEAP_INSERT`| 0: target page; data = offset + tuple (header compacted) | — |
//! | `XLOG_HEAP_DELETE`| 0: the tuple's page            | header change             |
//! | `XLOG_HEAP_UPDATE`| 0: new version's page; data = offset + tuple, or with `XLOG_HEAP_UPDATE_DELTA` what differs from the old version; 1: old version's page if different | header change of the old version |
//! | `XLOG_HEAP_LOCK`  | 0: the tuple's page            | header change             |
//! | `XLOG_HEAP_PRUNE` | 0: the pruned page; data = [`PruneRecord`]: redirects, line pointers made dead, made unused | — |
//! | `XLOG_HEAP_VACUUM`| 0: the vacuumed page; data = line pointers made unused | — |
//! | `XLOG_HEAP_VISIBLE`| 0: the heap page (gets `PD_ALL_VISIBLE`); 1: its visibility map page; data = heap block number | the map bits set |
//!
//! Every insert, delete, update and lock also clears the visibility map bits
//! of the heap pages it touches (`visibilitymap.rs`): redo does it
//! unconditionally, since the primary did it whenever the page was marked.
//!
//! A *header change* is the complete new state of the transaction fields of one
//! tuple header (offset, xmax, cid, infomask, infomask2, ctid). Redo overwrites
//! them; no decision is re-made, so redo is idempotent and never consults the
//! commit log. New tuples are logged without the header fields redo can derive
//! (see `encode_new_tuple`) and put back at the same line pointer.
//!
//! An update that keeps its new version on the old version's page (every HOT
//! update does) logs only the bytes of the new tuple body between the prefix
//! and the suffix it shares with the old one (PostgreSQL's
//! XLH_UPDATE_PREFIX_FROM_OLD / SUFFIX_FROM_OLD): updating a timestamp in a
//! wide row logs the timestamp, not the row. Redo reads the shared bytes from
//! the old version, which is still on the page in its pre-record state —
//! the record only ever changes the old version's header.
//!
//! A block flagged WILL_INIT (the insert that initialised a fresh page) is
//! re-created from nothing; any other block is either restored from its
//! full-page image or changed only if its LSN shows the change is missing.

use super::visibilitymap;
use crate::common::htup::{HeapTupleHeader, HEAP_XMAX_INVALID, SIZEOF_HEAP_TUPLE_HEADER};
use crate::error::{AccessError, Result};
use crate::recovery::redo_block;
use sluice_common::{ItemPointer, Xid};
use sluice_storage::buffer::BufferPool;
use sluice_storage::page::{ItemId, LpFlags, Page, PD_ALL_VISIBLE, PD_PAGE_FULL};
use sluice_wal::DecodedRecord;

/// A tuple inserted.
pub const XLOG_HEAP_INSERT: u8 = 0x00;
/// A tuple deleted.
pub const XLOG_HEAP_DELETE: u8 = 0x10;
/// A tuple updated (new version anywhere).
pub const XLOG_HEAP_UPDATE: u8 = 0x20;
/// A tuple locked (SELECT ... FOR UPDATE and friends).
pub const XLOG_HEAP_LOCK: u8 = 0x60;
/// Flag on `XLOG_HEAP_UPDATE`: the new version, on the old one's page, is
/// logged as a delta against the old version (`encode_new_tuple_delta`).
pub const XLOG_HEAP_UPDATE_DELTA: u8 = 0x80;

/// Dead tuples became dead line pointers and the page was compacted
/// (PostgreSQL's XLOG_HEAP2_PRUNE).
pub const XLOG_HEAP_PRUNE: u8 = 0x30;
/// Dead line pointers whose index entries are gone became unused
/// (PostgreSQL's XLOG_HEAP2_VACUUM).
pub const XLOG_HEAP_VACUUM: u8 = 0x40;

/// A heap page became all-visible (and maybe all-frozen) in the visibility
/// map (PostgreSQL's XLOG_HEAP2_VISIBLE).
pub const XLOG_HEAP_VISIBLE: u8 = 0x50;

/// encode_offsets -- block data of a vacuum record: the line pointer
/// numbers whose state changed, ascending.
pub fn encode_offsets(offsets: &[u16]) -> Vec<u8> {
    offsets.iter().flat_map(|o| o.to_le_bytes()).collect()
}

/// decode_offsets -- the line pointer numbers of a prune or vacuum record,
/// each checked against `page`.
fn decode_offsets(data: &[u8], page: &Page) -> Result<Vec<u16>> {
    if !data.len().is_multiple_of(2) {
        return Err(AccessError::Corrupt("heap prune record of odd length".into()));
    }
    let offsets: Vec<u16> =
        data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    if offsets.iter().any(|&o| o == 0 || o > page.max_offset()) {
        return Err(AccessError::Corrupt("heap prune record names a missing line pointer".into()));
    }
    Ok(offsets)
}

/// What one pruning did to a page's line pointers (PostgreSQL's
/// xl_heap_prune arrays): HOT chain roots redirected to their first
/// surviving member, pointers made dead (index entries may still lead
/// there), and heap-only tuples' pointers made unused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PruneRecord {
    /// (root, the member it now redirects to).
    pub redirected: Vec<(u16, u16)>,
    /// Line pointers made `LP_DEAD`.
    pub dead: Vec<u16>,
    /// Line pointers made `LP_UNUSED`.
    pub unused: Vec<u16>,
}

impl PruneRecord {
    /// Whether the pruning changes nothing.
    pub fn is_empty(&self) -> bool {
        self.redirected.is_empty() && self.dead.is_empty() && self.unused.is_empty()
    }

    /// apply -- sets the line pointers and compacts the page; the same on
    /// the primary and in redo (`repair_fragmentation` is deterministic), so
    /// the page ends up byte for byte the same.
    pub fn apply(&self, page: &mut Page) {
        for &(from, to) in &self.redirected {
            page.set_item_id(from, ItemId::redirect(to));
        }
        for &off in &self.dead {
            page.set_item_state(off, LpFlags::Dead);
        }
        for &off in &self.unused {
            page.set_item_state(off, LpFlags::Unused);
        }
        page.repair_fragmentation();
        // Room was made: the next update that finds the page full may look again.
        page.clear_flag(PD_PAGE_FULL);
    }
}

/// encode_prune -- block data of a prune record: the three counts (u16),
/// then the redirect pairs, the dead and the unused line pointers.
pub fn encode_prune(record: &PruneRecord) -> Vec<u8> {
    let mut out = Vec::new();
    for n in [record.redirected.len(), record.dead.len(), record.unused.len()] {
        out.extend_from_slice(&(n as u16).to_le_bytes());
    }
    let pairs = record.redirected.iter().flat_map(|&(a, b)| [a, b]);
    let all = pairs.chain(record.dead.iter().copied()).chain(record.unused.iter().copied());
    out.extend(all.flat_map(u16::to_le_bytes));
    out
}

/// decode_prune -- the prune record in `data`, every line pointer checked
/// against `page`.
fn decode_prune(data: &[u8], page: &Page) -> Result<PruneRecord> {
    let short = || AccessError::Corrupt("heap prune record too short".into());
    let counts = data.get(..6).ok_or_else(short)?;
    let n = |i: usize| u16::from_le_bytes([counts[2 * i], counts[2 * i + 1]]) as usize;
    let (nredirected, ndead, nunused) = (n(0), n(1), n(2));
    let rest = data.get(6..).ok_or_else(short)?;
    if rest.len() != 2 * (2 * nredirected + ndead + nunused) {
        return Err(short());
    }
    let offsets = decode_offsets(rest, page)?;
    let (pairs, rest) = offsets.split_at(2 * nredirected);
    let (dead, unused) = rest.split_at(ndead);
    Ok(PruneRecord {
        redirected: pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
        dead: dead.to_vec(),
        unused: unused.to_vec(),
    })
}

/// apply_prune -- redo of `XLOG_HEAP_PRUNE`.
pub fn apply_prune(page: &mut Page, data: &[u8]) -> Result<()> {
    decode_prune(data, page)?.apply(page);
    Ok(())
}

/// apply_vacuum -- redo of `XLOG_HEAP_VACUUM`: the line pointers become
/// unused and trailing unused ones are cut off.
pub fn apply_vacuum(page: &mut Page, data: &[u8]) -> Result<()> {
    for off in decode_offsets(data, page)? {
        page.set_item_state(off, LpFlags::Unused);
    }
    page.truncate_line_pointers();
    Ok(())
}

/// The new transaction fields of one tuple header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderChange {
    /// Line pointer of the tuple.
    pub offset: u16,
    /// New xmax.
    pub xmax: u64,
    /// New command id field.
    pub cid: u32,
    /// New infomask.
    pub infomask: u16,
    /// New infomask2.
    pub infomask2: u16,
    /// New ctid.
    pub ctid: ItemPointer,
}

const HEADER_CHANGE_LEN: usize = 2 + 8 + 4 + 2 + 2 + 4 + 2;

impl HeaderChange {
    /// The change that makes `tuple` (at `offset`) look as it does now.
    pub fn capture(offset: u16, tuple: &[u8]) -> Result<HeaderChange> {
        let hdr = HeapTupleHeader::new(tuple)?;
        Ok(HeaderChange {
            offset,
            xmax: hdr.xmax().0,
            cid: hdr.cid(),
            infomask: hdr.infomask(),
            infomask2: hdr.infomask2(),
            ctid: hdr.ctid(),
        })
    }

    /// Serialises the change.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_CHANGE_LEN);
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.xmax.to_le_bytes());
        out.extend_from_slice(&self.cid.to_le_bytes());
        out.extend_from_slice(&self.infomask.to_le_bytes());
        out.extend_from_slice(&self.infomask2.to_le_bytes());
        out.extend_from_slice(&self.ctid.block.to_le_bytes());
        out.extend_from_slice(&self.ctid.offset.to_le_bytes());
        out
    }

    /// Parses a change; malformed input is corruption.
    pub fn decode(data: &[u8]) -> Result<HeaderChange> {
        if data.len() < HEADER_CHANGE_LEN {
            return Err(AccessError::Corrupt("heap WAL record too short".into()));
        }
        let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(data[i..i + 4].try_into().expect("4 bytes"));
        Ok(HeaderChange {
            offset: u16_at(0),
            xmax: u64::from_le_bytes(data[2..10].try_into().expect("8 bytes")),
            cid: u32_at(10),
            infomask: u16_at(14),
            infomask2: u16_at(16),
            ctid: ItemPointer::new(u32_at(18), u16_at(22)),
        })
    }

    /// Applies the change to the tuple on `page` (which is no longer
    /// all-visible).
    pub fn apply(&self, page: &mut Page) -> Result<()> {
        page.clear_flag(PD_ALL_VISIBLE);
        let item = page.item_mut(self.offset).ok_or_else(|| {
            AccessError::Corrupt(format!("heap redo: no tuple at offset {}", self.offset))
        })?;
        let mut hdr = HeapTupleHeader::new(item)?;
        hdr.set_xmax(sluice_common::Xid(self.xmax));
        hdr.set_cid(self.cid);
        hdr.set_infomask(self.infomask);
        hdr.set_infomask2(self.infomask2);
        hdr.set_ctid(self.ctid);
        Ok(())
    }
}

/// Block data of a new tuple (PostgreSQL's xl_heap_header idea): the line
/// pointer number and the header fields redo cannot derive (cid, infomask2,
/// infomask, hoff), the xmax only when there is one (an update's new
/// version that carries the old one's FOR KEY SHARE lockers), then the
/// tuple from its null bitmap on. xmin is the record's xid, xmax is almost
/// always zero and ctid is the tuple's own address, so they are not
/// logged — 22 bytes less WAL per row.
pub fn encode_new_tuple(offset: u16, tuple: &[u8]) -> Result<Vec<u8>> {
    let hdr = HeapTupleHeader::new(tuple)?;
    let mut out = Vec::with_capacity(NEW_TUPLE_PREFIX + tuple.len() - SIZEOF_HEAP_TUPLE_HEADER);
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&hdr.cid().to_le_bytes());
    out.extend_from_slice(&hdr.infomask2().to_le_bytes());
    out.extend_from_slice(&hdr.infomask().to_le_bytes());
    out.push(hdr.hoff() as u8);
    if carries_xmax(hdr.infomask()) {
        out.extend_from_slice(&hdr.xmax().0.to_le_bytes());
    }
    out.extend_from_slice(&tuple[SIZEOF_HEAP_TUPLE_HEADER..]);
    Ok(out)
}

/// Whether a new tuple with this infomask has an xmax, logged after the
/// fixed fields.
fn carries_xmax(infomask: u16) -> bool {
    infomask & HEAP_XMAX_INVALID == 0
}

/// Where the tuple body starts in a new-tuple block `data`: after the
/// fixed fields and, if the infomask says so, the xmax.
fn new_tuple_prefix(data: &[u8]) -> Result<usize> {
    if data.len() < NEW_TUPLE_PREFIX {
        return Err(AccessError::Corrupt("heap WAL record too short".into()));
    }
    let infomask = u16::from_le_bytes([data[8], data[9]]);
    let len = NEW_TUPLE_PREFIX + if carries_xmax(infomask) { 8 } else { 0 };
    if data.len() < len {
        return Err(AccessError::Corrupt("heap WAL record too short".into()));
    }
    Ok(len)
}

/// Bytes before the tuple body in a new-tuple block: offset, cid, infomask2,
/// infomask, hoff.
const NEW_TUPLE_PREFIX: usize = 2 + 4 + 2 + 2 + 1;

/// The two lengths a delta adds: bytes shared with the old body's start and end.
const DELTA_LENGTHS: usize = 2 + 2;

/// encode_new_tuple_delta -- the block data of `encode_new_tuple` with the
/// body cut down to what differs from `old` (the old version's whole tuple):
/// the length of the common prefix and suffix of the two bodies, then the
/// bytes between them. `None` when sharing saves nothing worth a delta.
pub fn encode_new_tuple_delta(offset: u16, tuple: &[u8], old: &[u8]) -> Result<Option<Vec<u8>>> {
    let (new_body, old_body) = (body(tuple)?, body(old)?);
    let prefix = common_len(new_body.iter(), old_body.iter());
    let rest = new_body.len().min(old_body.len()) - prefix;
    let suffix = common_len(new_body.iter().rev(), old_body.iter().rev()).min(rest);
    if prefix + suffix <= DELTA_LENGTHS {
        return Ok(None);
    }
    let mut out = encode_new_tuple(offset, &tuple[..SIZEOF_HEAP_TUPLE_HEADER])?;
    out.extend_from_slice(&(prefix as u16).to_le_bytes());
    out.extend_from_slice(&(suffix as u16).to_le_bytes());
    out.extend_from_slice(&new_body[prefix..new_body.len() - suffix]);
    Ok(Some(out))
}

/// The part of a heap tuple after its fixed header.
fn body(tuple: &[u8]) -> Result<&[u8]> {
    tuple
        .get(SIZEOF_HEAP_TUPLE_HEADER..)
        .ok_or_else(|| AccessError::Corrupt("heap tuple shorter than its header".into()))
}

/// How many leading items two sequences share.
fn common_len<'a>(a: impl Iterator<Item = &'a u8>, b: impl Iterator<Item = &'a u8>) -> usize {
    a.zip(b).take_while(|(x, y)| x == y).count()
}

/// expand_delta -- turns the block data of `encode_new_tuple_delta` back into
/// that of `encode_new_tuple`, taking the shared bytes from `old`.
fn expand_delta(data: &[u8], old: &[u8]) -> Result<Vec<u8>> {
    let short = || AccessError::Corrupt("heap update delta too short".into());
    let start = new_tuple_prefix(data)?;
    let lengths = data.get(start..start + DELTA_LENGTHS).ok_or_else(short)?;
    let prefix = u16::from_le_bytes([lengths[0], lengths[1]]) as usize;
    let suffix = u16::from_le_bytes([lengths[2], lengths[3]]) as usize;
    let old_body = body(old)?;
    if prefix + suffix > old_body.len() {
        return Err(AccessError::Corrupt("heap update delta longer than the old version".into()));
    }
    let mut out = data[..start].to_vec();
    out.extend_from_slice(&old_body[..prefix]);
    out.extend_from_slice(&data[start + DELTA_LENGTHS..]);
    out.extend_from_slice(&old_body[old_body.len() - suffix..]);
    Ok(out)
}

/// Rebuilds the tuple logged by `encode_new_tuple` and puts it back at its line
/// pointer on `page` (block `block`), inserted by `xid`.
fn apply_new_tuple(page: &mut Page, block: u32, xid: Xid, data: &[u8]) -> Result<()> {
    let start = new_tuple_prefix(data)?;
    let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
    let offset = u16_at(0);
    let mut tuple = vec![0u8; SIZEOF_HEAP_TUPLE_HEADER];
    tuple.extend_from_slice(&data[start..]);
    {
        let mut hdr = HeapTupleHeader::new(&mut tuple[..])?;
        hdr.set_xmin(xid);
        hdr.set_cid(u32::from_le_bytes(data[2..6].try_into().expect("4 bytes")));
        hdr.set_infomask2(u16_at(6));
        hdr.set_infomask(u16_at(8));
        hdr.set_hoff(data[10]);
        hdr.set_ctid(ItemPointer::new(block, offset));
        if start > NEW_TUPLE_PREFIX {
            let xmax = &data[NEW_TUPLE_PREFIX..start];
            hdr.set_xmax(Xid(u64::from_le_bytes(xmax.try_into().expect("8 bytes"))));
        }
    }
    if !page.add_item_at(offset, &tuple) {
        return Err(AccessError::Corrupt(format!(
            "heap redo: failed to add tuple at offset {offset}"
        )));
    }
    Ok(())
}

fn new_tuple_block_number(record: &DecodedRecord) -> Result<u32> {
    record
        .block(0)
        .map(|b| b.block)
        .ok_or_else(|| AccessError::Corrupt("heap WAL record lacks block 0".into()))
}

/// redo -- replays one heap record.
pub fn redo(pool: &BufferPool, record: &DecodedRecord) -> Result<()> {
    match record.info & 0x70 {
        XLOG_HEAP_INSERT => {
            let block = new_tuple_block_number(record)?;
            redo_block(pool, record, 0, |page, data| {
                page.clear_flag(PD_ALL_VISIBLE);
                apply_new_tuple(page, block, record.xid, data)
            })?;
        }
        XLOG_HEAP_DELETE | XLOG_HEAP_LOCK => {
            let change = HeaderChange::decode(&record.main_data)?;
            redo_block(pool, record, 0, |page, _| change.apply(page))?;
        }
        XLOG_HEAP_UPDATE => {
            let change = HeaderChange::decode(&record.main_data)?;
            let same_page = record.block(1).is_none();
            let block = new_tuple_block_number(record)?;
            let delta = record.info & XLOG_HEAP_UPDATE_DELTA != 0;
            if delta && !same_page {
                return Err(AccessError::Corrupt("heap update delta across pages".into()));
            }
            redo_block(pool, record, 0, |page, data| {
                page.clear_flag(PD_ALL_VISIBLE);
                if delta {
                    let old = page.item(change.offset).ok_or_else(|| {
                        AccessError::Corrupt("heap update delta without its old version".into())
                    })?;
                    let full = expand_delta(data, old)?;
                    apply_new_tuple(page, block, record.xid, &full)?;
                } else {
                    apply_new_tuple(page, block, record.xid, data)?;
                }
                if same_page {
                    change.apply(page)?;
                }
                Ok(())
            })?;
            if !same_page {
                redo_block(pool, record, 1, |page, _| change.apply(page))?;
            }
        }
        XLOG_HEAP_PRUNE => return redo_block(pool, record, 0, apply_prune),
        XLOG_HEAP_VACUUM => return redo_block(pool, record, 0, apply_vacuum),
        XLOG_HEAP_VISIBLE => return redo_visible(pool, record),
        other => {
            return Err(AccessError::Corrupt(format!("heap redo: unknown record type {other:#x}")))
        }
    }
    // The change cleared the visibility map bits of every page it touched.
    for block in &record.blocks {
        visibilitymap::redo_clear(pool, block.rel, block.block)?;
    }
    Ok(())
}

/// redo_visible -- redo of `XLOG_HEAP_VISIBLE`: the heap page's flag and
/// the map page's bits.
fn redo_visible(pool: &BufferPool, record: &DecodedRecord) -> Result<()> {
    let flags = *record
        .main_data
        .first()
        .ok_or_else(|| AccessError::Corrupt("visibility map record lacks its flags".into()))?;
    redo_block(pool, record, 0, |page, _| {
        page.set_flag(PD_ALL_VISIBLE);
        Ok(())
    })?;
    redo_block(pool, record, 1, |map, data| visibilitymap::redo_set(map, data, flags))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::htup::{HEAP_UPDATED, HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY};

    #[test]
    fn prune_and_vacuum_redo_free_space_then_line_pointers() {
        let mut page = Page::new_zeroed();
        page.init(0);
        for i in 1..=4u8 {
            page.add_item(&[i; 40]).unwrap();
        }
        let before = page.free_space();
        let prune = PruneRecord { dead: vec![2, 4], ..PruneRecord::default() };
        apply_prune(&mut page, &encode_prune(&prune)).unwrap();
        assert!(page.item_id(2).is_dead() && page.item_id(4).is_dead());
        assert_eq!(page.free_space(), before + 2 * 40, "the tuples' storage is free");
        assert_eq!(page.item(3).unwrap(), &[3; 40][..], "survivors keep their addresses");
        apply_vacuum(&mut page, &encode_offsets(&[2, 4])).unwrap();
        assert_eq!(page.max_offset(), 3, "the trailing unused pointer is cut off");
        assert!(!page.item_id(2).is_used());
        assert_eq!(page.add_item(&[9; 8]), Some(2), "the freed pointer is reused");
        assert!(apply_vacuum(&mut page, &encode_offsets(&[7])).is_err());
        assert!(apply_prune(&mut page, &[1]).is_err());
    }

    #[test]
    fn prune_redo_sets_redirects_and_frees_heap_only_tuples() {
        let mut page = Page::new_zeroed();
        page.init(0);
        for i in 1..=4u8 {
            page.add_item(&[i; 40]).unwrap();
        }
        // Chain 1 → 2 → 3: 1 and 2 are dead, 3 survives; 4 is unrelated.
        let record = PruneRecord { redirected: vec![(1, 3)], dead: vec![], unused: vec![2] };
        let data = encode_prune(&record);
        assert_eq!(decode_prune(&data, &page).unwrap(), record);
        let before = page.free_space();
        apply_prune(&mut page, &data).unwrap();
        assert!(page.item_id(1).is_redirect() && page.item_id(1).off() == 3);
        assert!(!page.item_id(2).is_used());
        assert_eq!(page.item(3).unwrap(), &[3; 40][..]);
        assert_eq!(page.free_space(), before + 2 * 40, "the root's and 2's storage is free");
        assert!(apply_prune(&mut page, &data[..7]).is_err(), "truncated record");
    }

    #[test]
    fn update_delta_logs_only_the_changed_middle() {
        let mut header = [0u8; SIZEOF_HEAP_TUPLE_HEADER];
        HeapTupleHeader::new(&mut header[..]).unwrap().set_infomask(HEAP_XMAX_INVALID);
        let tuple = |body: &[u8]| [&header[..], body].concat();
        let old = tuple(b"id=42|name=alpha|seen=2025-01-01|memo=xxxxxxxx");
        let new = tuple(b"id=42|name=alpha|seen=2026-12-01|memo=xxxxxxxx");
        let delta = encode_new_tuple_delta(3, &new, &old).unwrap().expect("worth a delta");
        assert_eq!(delta.len(), NEW_TUPLE_PREFIX + DELTA_LENGTHS + "6-12".len());
        assert_eq!(expand_delta(&delta, &old).unwrap(), encode_new_tuple(3, &new).unwrap());
        // Growing and shrinking bodies, and a body that is the old one's prefix.
        for body in [
            &b"id=42|name=alpha|seen=2026-12-01|memo=xxxxxxxxyy"[..],
            b"id=42|memo=xx",
            b"id=42|name=",
        ] {
            let new = tuple(body);
            if let Some(delta) = encode_new_tuple_delta(1, &new, &old).unwrap() {
                assert_eq!(expand_delta(&delta, &old).unwrap(), encode_new_tuple(1, &new).unwrap());
            }
        }
        assert!(encode_new_tuple_delta(1, &tuple(b"abc"), &tuple(b"xyz")).unwrap().is_none());
        assert!(expand_delta(&delta, &tuple(b"short")).is_err(), "old version too short");
        assert!(expand_delta(&delta[..NEW_TUPLE_PREFIX + 1], &old).is_err(), "truncated");
    }

    #[test]
    fn a_new_version_carrying_lockers_keeps_its_xmax_through_redo() {
        let mut tuple = vec![0u8; SIZEOF_HEAP_TUPLE_HEADER + 16];
        tuple[SIZEOF_HEAP_TUPLE_HEADER..].copy_from_slice(b"carried-lockers!");
        {
            let mut hdr = HeapTupleHeader::new(&mut tuple[..]).unwrap();
            hdr.set_hoff(SIZEOF_HEAP_TUPLE_HEADER as u8);
            hdr.set_infomask(HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_LOCK_ONLY | HEAP_UPDATED);
            hdr.set_xmax(Xid(1 << 33));
        }
        let mut old = tuple.clone();
        old[SIZEOF_HEAP_TUPLE_HEADER] = b'C';
        let mut page = Page::new_zeroed();
        page.init(0);
        for data in [
            encode_new_tuple(1, &tuple).unwrap(),
            expand_delta(&encode_new_tuple_delta(1, &tuple, &old).unwrap().unwrap(), &old).unwrap(),
        ] {
            let mut page = page.clone();
            apply_new_tuple(&mut page, 5, Xid(77), &data).unwrap();
            let hdr = HeapTupleHeader::new(page.item(1).unwrap()).unwrap();
            assert_eq!((hdr.xmin(), hdr.xmax()), (Xid(77), Xid(1 << 33)));
            assert!(hdr.xmax_is_locked_only());
            assert_eq!(&page.item(1).unwrap()[SIZEOF_HEAP_TUPLE_HEADER..], b"carried-lockers!");
        }
        page.init(0);
        let data = encode_new_tuple(1, &tuple).unwrap();
        assert!(apply_new_tuple(&mut page, 5, Xid(77), &data[..NEW_TUPLE_PREFIX + 3]).is_err());
    }

    #[test]
    fn header_changes_round_trip() {
        let c = HeaderChange {
            offset: 7,
            xmax: 1 << 40,
            cid: 3,
            infomask: 0x0800,
            infomask2: 0x2003,
            ctid: ItemPointer::new(9, 2),
        };
        assert_eq!(HeaderChange::decode(&c.encode()).unwrap(), c);
        assert!(HeaderChange::decode(&[1, 2, 3]).is_err());
    }
}
