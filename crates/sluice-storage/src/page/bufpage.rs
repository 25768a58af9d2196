//! The slotted page layout and its operations (PostgreSQL's `bufpage.c`).
//!
//! Header layout (little-endian):
//!
//! | bytes  | field                 | meaning                                          |
//! |--------|-----------------------|--------------------------------------------------|
//! | 0..8   | `pd_lsn`              | end LSN of the last WAL record that changed it   |
//! | 8..10  | `pd_checksum`         | see `checksum.rs`                                |
//! | 10..12 | `pd_flags`            | `PD_HAS_FREE_LINES`, `PD_PAGE_FULL`, `PD_ALL_VISIBLE` |
//! | 12..14 | `pd_lower`            | end of the line pointer array                    |
//! | 14..16 | `pd_upper`            | start of item storage                            |
//! | 16..18 | `pd_special`          | start of the access method's special space       |
//! | 18..20 | `pd_pagesize_version` | 8192 + layout version                            |
//! | 20..28 | `pd_prune_xid`        | oldest xmax that may make something prunable     |
//!
//! `pd_lsn` must stay in bytes 0..8: the WAL's full-page-image rule reads it there.
//!
//! Invariants: `HEADER_SIZE <= pd_lower <= pd_upper <= pd_special <= BLCKSZ`, every
//! normal line pointer's item lies within `[pd_upper, pd_special)`, and items are
//! MAXALIGNed. A page whose header breaks these is reported as corrupt, never
//! trusted (`validate_header`).
//!
//! These functions never lock anything: the caller holds the buffer's content lock,
//! shared for reading, exclusive for any change.

use super::itemid::{ItemId, LpFlags};
use sluice_common::{maxalign, Lsn, Xid, BLCKSZ};

/// Size of the page header; the line pointer array starts here.
pub const HEADER_SIZE: usize = 28;
/// Size of one line pointer.
pub const ITEM_ID_SIZE: usize = 4;
/// The page layout version stored in `pd_pagesize_version`.
pub const PAGE_LAYOUT_VERSION: u16 = 4;

/// Some line pointers are unused (so inserts may reuse one before appending).
pub const PD_HAS_FREE_LINES: u16 = 0x0001;
/// An update found no room on this page (a hint for pruning).
pub const PD_PAGE_FULL: u16 = 0x0002;
/// Every tuple on the page is visible to every snapshot.
pub const PD_ALL_VISIBLE: u16 = 0x0004;

/// The most line pointers a heap page can usefully hold (PostgreSQL's
/// MaxHeapTuplesPerPage, recomputed for sluice's 32-byte tuple header).
pub const MAX_HEAP_TUPLES_PER_PAGE: usize = (BLCKSZ - HEADER_SIZE) / (maxalign(31) + ITEM_ID_SIZE);

/// A line pointer number (1-based, as PostgreSQL's OffsetNumber).
pub type OffsetNumber = u16;
/// The first valid line pointer number.
pub const FIRST_OFFSET: OffsetNumber = 1;

/// One 8 KB page, aligned so that 8-byte fields of tuples inside it are aligned.
#[derive(Clone)]
#[repr(C, align(8))]
pub struct Page {
    bytes: [u8; BLCKSZ],
}

impl Default for Page {
    fn default() -> Page {
        Page { bytes: [0; BLCKSZ] }
    }
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("lsn", &self.lsn())
            .field("lower", &self.lower())
            .field("upper", &self.upper())
            .field("special", &self.special())
            .finish()
    }
}

impl Page {
    /// A zeroed ("new") page.
    pub fn new_zeroed() -> Box<Page> {
        Box::default()
    }

    /// init -- formats an empty page with `special_size` bytes of special space
    /// (PostgreSQL's PageInit). Everything previously on the page is lost.
    pub fn init(&mut self, special_size: usize) {
        let special = BLCKSZ - maxalign(special_size);
        self.bytes.fill(0);
        self.set_u16(12, HEADER_SIZE as u16);
        self.set_u16(14, special as u16);
        self.set_u16(16, special as u16);
        self.set_u16(18, BLCKSZ as u16 | PAGE_LAYOUT_VERSION);
    }

    /// The raw bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8; BLCKSZ] {
        &self.bytes
    }

    /// The raw bytes, for changing.
    pub fn as_bytes_mut(&mut self) -> &mut [u8; BLCKSZ] {
        &mut self.bytes
    }

    /// Whether the page was never initialised (all header fields zero).
    #[inline]
    pub fn is_new(&self) -> bool {
        self.upper() == 0
    }

    #[inline]
    fn u16_at(&self, off: usize) -> u16 {
        u16::from_le_bytes([self.bytes[off], self.bytes[off + 1]])
    }

    fn set_u16(&mut self, off: usize, v: u16) {
        self.bytes[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }

    /// End LSN of the last WAL record that changed this page.
    #[inline]
    pub fn lsn(&self) -> Lsn {
        Lsn(u64::from_le_bytes(self.bytes[0..8].try_into().expect("8 bytes")))
    }

    /// Records that the WAL record ending at `lsn` changed this page.
    pub fn set_lsn(&mut self, lsn: Lsn) {
        self.bytes[0..8].copy_from_slice(&lsn.0.to_le_bytes());
    }

    /// The page flags (`PD_*`).
    pub fn flags(&self) -> u16 {
        self.u16_at(10)
    }

    /// Sets `flag` in the page flags.
    pub fn set_flag(&mut self, flag: u16) {
        let flags = self.flags() | flag;
        self.set_u16(10, flags);
    }

    /// Clears `flag` from the page flags.
    pub fn clear_flag(&mut self, flag: u16) {
        let flags = self.flags() & !flag;
        self.set_u16(10, flags);
    }

    /// Whether `flag` is set.
    pub fn has_flag(&self, flag: u16) -> bool {
        self.flags() & flag != 0
    }

    /// End of the line pointer array.
    #[inline]
    pub fn lower(&self) -> usize {
        self.u16_at(12) as usize
    }

    /// Start of item storage.
    #[inline]
    pub fn upper(&self) -> usize {
        self.u16_at(14) as usize
    }

    /// Start of the special space.
    #[inline]
    pub fn special(&self) -> usize {
        self.u16_at(16) as usize
    }

    fn set_lower(&mut self, v: usize) {
        self.set_u16(12, v as u16);
    }

    fn set_upper(&mut self, v: usize) {
        self.set_u16(14, v as u16);
    }

    /// The oldest xmax on the page that may be prunable (or invalid).
    pub fn prune_xid(&self) -> Xid {
        Xid(u64::from_le_bytes(self.bytes[20..28].try_into().expect("8 bytes")))
    }

    /// Sets the prune hint.
    pub fn set_prune_xid(&mut self, xid: Xid) {
        self.bytes[20..28].copy_from_slice(&xid.0.to_le_bytes());
    }

    /// The hole a full-page image may leave out: `(pd_lower, pd_upper - pd_lower)`.
    pub fn hole(&self) -> (u16, u16) {
        if self.is_new() || self.upper() < self.lower() {
            return (0, 0);
        }
        (self.lower() as u16, (self.upper() - self.lower()) as u16)
    }

    /// validate_header -- whether the header obeys the page invariants. Pages read
    /// from disk are checked before anything trusts their offsets.
    pub fn validate_header(&self) -> bool {
        if self.is_new() {
            return true;
        }
        let (lower, upper, special) = (self.lower(), self.upper(), self.special());
        HEADER_SIZE <= lower
            && lower <= upper
            && upper <= special
            && special <= BLCKSZ
            && self.u16_at(18) == BLCKSZ as u16 | PAGE_LAYOUT_VERSION
    }

    /// Number of line pointers (PostgreSQL's PageGetMaxOffsetNumber).
    #[inline]
    pub fn max_offset(&self) -> OffsetNumber {
        (self.lower().saturating_sub(HEADER_SIZE) / ITEM_ID_SIZE) as OffsetNumber
    }

    #[inline]
    fn item_id_pos(off: OffsetNumber) -> usize {
        HEADER_SIZE + (off as usize - 1) * ITEM_ID_SIZE
    }

    /// The line pointer `off` (1-based). The caller checks `off <= max_offset()`.
    #[inline]
    pub fn item_id(&self, off: OffsetNumber) -> ItemId {
        let pos = Page::item_id_pos(off);
        ItemId(u32::from_le_bytes(self.bytes[pos..pos + 4].try_into().expect("4 bytes")))
    }

    /// Overwrites line pointer `off`.
    pub fn set_item_id(&mut self, off: OffsetNumber, id: ItemId) {
        let pos = Page::item_id_pos(off);
        self.bytes[pos..pos + 4].copy_from_slice(&id.0.to_le_bytes());
    }

    /// The bytes of the item that normal line pointer `off` points at, or `None`
    /// for a missing or non-normal pointer or one pointing outside item storage.
    #[inline]
    pub fn item(&self, off: OffsetNumber) -> Option<&[u8]> {
        let range = self.item_range(off)?;
        Some(&self.bytes[range])
    }

    /// Like [`Page::item`], for changing the item in place.
    pub fn item_mut(&mut self, off: OffsetNumber) -> Option<&mut [u8]> {
        let range = self.item_range(off)?;
        Some(&mut self.bytes[range])
    }

    /// Where in the page the item of normal line pointer `off` lies, under the
    /// same rules as [`Page::item`].
    #[inline]
    pub fn item_range(&self, off: OffsetNumber) -> Option<std::ops::Range<usize>> {
        if off < FIRST_OFFSET || off > self.max_offset() {
            return None;
        }
        let id = self.item_id(off);
        if !id.is_normal() {
            return None;
        }
        let (start, end) = (id.off() as usize, id.off() as usize + id.len() as usize);
        (start >= self.upper() && end <= self.special()).then_some(start..end)
    }

    /// Free bytes between the line pointer array and item storage, minus one line
    /// pointer's worth (PostgreSQL's PageGetFreeSpace).
    pub fn free_space(&self) -> usize {
        (self.upper().saturating_sub(self.lower())).saturating_sub(ITEM_ID_SIZE)
    }

    /// Free space for a new heap tuple: as [`Page::free_space`], but zero once the
    /// page has as many line pointers as a heap page may hold and none is free
    /// (PostgreSQL's PageGetHeapFreeSpace).
    pub fn heap_free_space(&self) -> usize {
        let space = self.free_space();
        if space > 0
            && self.max_offset() as usize >= MAX_HEAP_TUPLES_PER_PAGE
            && !(self.has_flag(PD_HAS_FREE_LINES) && self.first_unused_item().is_some())
        {
            return 0;
        }
        space
    }

    fn first_unused_item(&self) -> Option<OffsetNumber> {
        (FIRST_OFFSET..=self.max_offset()).find(|&off| !self.item_id(off).is_used())
    }

    /// add_item -- stores `item` on the page and returns its line pointer number,
    /// or `None` if it does not fit (PostgreSQL's PageAddItem for heap pages).
    ///
    /// Reuses an unused line pointer when `PD_HAS_FREE_LINES` says there may be one,
    /// otherwise appends a new pointer. The item is placed MAXALIGNed just below
    /// `pd_upper`.
    pub fn add_item(&mut self, item: &[u8]) -> Option<OffsetNumber> {
        let reuse = if self.has_flag(PD_HAS_FREE_LINES) { self.first_unused_item() } else { None };
        if reuse.is_none() && self.has_flag(PD_HAS_FREE_LINES) {
            self.clear_flag(PD_HAS_FREE_LINES);
        }
        let (off, lower) = match reuse {
            Some(off) => (off, self.lower()),
            None => {
                if self.max_offset() as usize >= MAX_HEAP_TUPLES_PER_PAGE {
                    return None;
                }
                (self.max_offset() + 1, self.lower() + ITEM_ID_SIZE)
            }
        };
        self.place_item(off, lower, item).then_some(off)
    }

    /// Copies `item` below `pd_upper` (MAXALIGNed, padding zeroed) and points
    /// line pointer `off` at it, with the line pointer array ending at `lower`.
    /// False, changing nothing, if it does not fit.
    fn place_item(&mut self, off: OffsetNumber, lower: usize, item: &[u8]) -> bool {
        let size = maxalign(item.len());
        if lower > self.upper() || self.upper() - lower < size {
            return false;
        }
        let upper = self.upper() - size;
        self.bytes[upper..upper + item.len()].copy_from_slice(item);
        self.bytes[upper + item.len()..upper + size].fill(0);
        self.set_item_id(off, ItemId::normal(upper as u16, item.len() as u16));
        self.set_lower(lower);
        self.set_upper(upper);
        true
    }

    /// add_item_at -- stores `item` at exactly line pointer `off`, which must be
    /// unused or one past the end. Redo uses this to put a tuple back where the
    /// original operation put it. Returns false if it does not fit.
    pub fn add_item_at(&mut self, off: OffsetNumber, item: &[u8]) -> bool {
        let max = self.max_offset();
        if off < FIRST_OFFSET || off > max + 1 || (off <= max && self.item_id(off).is_used()) {
            return false;
        }
        let lower = if off == max + 1 { self.lower() + ITEM_ID_SIZE } else { self.lower() };
        self.place_item(off, lower, item)
    }

    /// insert_item -- stores `item` at line pointer `off`, moving the pointers
    /// from `off` on up by one (PostgreSQL's PageAddItem for index pages, which
    /// keep their items in key order and so have no stable item numbers).
    /// `off` may be one past the end. Returns false, changing nothing, if the
    /// item does not fit or `off` is out of range.
    pub fn insert_item(&mut self, off: OffsetNumber, item: &[u8]) -> bool {
        let max = self.max_offset();
        if off < FIRST_OFFSET || off > max + 1 {
            return false;
        }
        let lower = self.lower() + ITEM_ID_SIZE;
        if lower > self.upper() || self.upper() - lower < maxalign(item.len()) {
            return false;
        }
        let (from, end) = (Page::item_id_pos(off), self.lower());
        self.bytes.copy_within(from..end, from + ITEM_ID_SIZE);
        self.place_item(off, lower, item)
    }

    /// The access method's special space (`pd_special..BLCKSZ`).
    pub fn special_bytes(&self) -> &[u8] {
        &self.bytes[self.special()..]
    }

    /// The special space, for changing.
    pub fn special_bytes_mut(&mut self) -> &mut [u8] {
        let start = self.special();
        &mut self.bytes[start..]
    }

    /// repair_fragmentation -- moves every normal item to the end of the page so the
    /// free space is one contiguous hole again, and notes whether unused pointers
    /// exist (PostgreSQL's PageRepairFragmentation). Line pointer numbers do not
    /// change, so tuple addresses stay valid. Caller holds the exclusive lock (and,
    /// for heap pages, a cleanup lock: no other pin may be reading items).
    pub fn repair_fragmentation(&mut self) {
        let mut items: Vec<(OffsetNumber, ItemId)> = (FIRST_OFFSET..=self.max_offset())
            .map(|off| (off, self.item_id(off)))
            .filter(|(_, id)| id.is_normal())
            .collect();
        // Move the items nearest the end first so a move never overwrites an item
        // that has not been moved yet.
        items.sort_by_key(|(_, id)| std::cmp::Reverse(id.off()));
        let mut upper = self.special();
        for (off, id) in items {
            let size = maxalign(id.len() as usize);
            upper -= size;
            let src = id.off() as usize;
            self.bytes.copy_within(src..src + id.len() as usize, upper);
            self.set_item_id(off, ItemId::normal(upper as u16, id.len()));
        }
        self.set_upper(upper);
        if self.first_unused_item().is_some() {
            self.set_flag(PD_HAS_FREE_LINES);
        } else {
            self.clear_flag(PD_HAS_FREE_LINES);
        }
    }

    /// delete_items -- removes the items at `offsets` (ascending) from an
    /// index page: later line pointers move down to close the gaps and the
    /// storage is compacted (PostgreSQL's PageIndexMultiDelete). Only for
    /// pages whose item numbers are not addresses (B-tree pages); heap pages
    /// keep their line pointers and use [`Page::set_item_state`].
    pub fn delete_items(&mut self, offsets: &[OffsetNumber]) {
        let kept: Vec<ItemId> = (FIRST_OFFSET..=self.max_offset())
            .filter(|off| offsets.binary_search(off).is_err())
            .map(|off| self.item_id(off))
            .collect();
        for (i, id) in kept.iter().enumerate() {
            self.set_item_id(FIRST_OFFSET + i as OffsetNumber, *id);
        }
        self.set_lower(HEADER_SIZE + kept.len() * ITEM_ID_SIZE);
        self.repair_fragmentation();
    }

    /// Truncates trailing unused line pointers (PostgreSQL's PageTruncateLinePointerArray).
    pub fn truncate_line_pointers(&mut self) {
        let mut max = self.max_offset();
        while max >= FIRST_OFFSET && !self.item_id(max).is_used() {
            max -= 1;
        }
        self.set_lower(HEADER_SIZE + max as usize * ITEM_ID_SIZE);
    }

    /// Marks line pointer `off` with `flags` and no storage (dead or unused), as
    /// pruning does; the storage is reclaimed by the next `repair_fragmentation`.
    pub fn set_item_state(&mut self, off: OffsetNumber, flags: LpFlags) {
        self.set_item_id(off, ItemId::new(0, flags, 0));
        if flags == LpFlags::Unused {
            self.set_flag(PD_HAS_FREE_LINES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Box<Page> {
        let mut p = Page::new_zeroed();
        p.init(0);
        p
    }

    #[test]
    fn init_sets_header() {
        let p = page();
        assert!(!p.is_new());
        assert_eq!((p.lower(), p.upper(), p.special()), (HEADER_SIZE, BLCKSZ, BLCKSZ));
        assert!(p.validate_header());
        assert_eq!(p.free_space(), BLCKSZ - HEADER_SIZE - ITEM_ID_SIZE);
        assert_eq!(p.hole(), (HEADER_SIZE as u16, (BLCKSZ - HEADER_SIZE) as u16));
    }

    #[test]
    fn items_are_maxaligned_from_the_end() {
        let mut p = page();
        assert_eq!(p.add_item(&[1; 153]), Some(1));
        assert_eq!(p.add_item(&[2; 10]), Some(2));
        assert_eq!(p.upper(), BLCKSZ - 160 - 16);
        assert_eq!(p.item(1).unwrap(), &[1; 153][..]);
        assert_eq!(p.item(2).unwrap(), &[2; 10][..]);
        assert_eq!(p.item(3), None);
        assert_eq!(p.max_offset(), 2);
    }

    #[test]
    fn seed_rows_per_page() {
        // A seed-001 row is 153 bytes (160 aligned) + a 4-byte line pointer.
        let mut p = page();
        let mut n = 0;
        while p.add_item(&[7; 153]).is_some() {
            n += 1;
        }
        assert_eq!(n, (BLCKSZ - HEADER_SIZE) / 164);
        assert!(p.validate_header());
    }

    #[test]
    fn fragmentation_is_repaired_without_moving_addresses() {
        let mut p = page();
        for i in 1..=5u8 {
            p.add_item(&[i; 100]).unwrap();
        }
        let before = p.free_space();
        p.set_item_state(2, LpFlags::Dead);
        p.set_item_state(4, LpFlags::Unused);
        p.repair_fragmentation();
        assert_eq!(p.free_space(), before + 2 * 104);
        assert_eq!(p.item(5).unwrap(), &[5; 100][..]);
        assert_eq!(p.item(1).unwrap(), &[1; 100][..]);
        assert!(p.has_flag(PD_HAS_FREE_LINES));
        assert_eq!(p.add_item(&[9; 8]), Some(4), "the unused pointer is reused");
        assert!(p.item_id(2).is_dead());
    }

    #[test]
    fn insert_item_shifts_later_pointers() {
        let mut p = page();
        assert!(p.insert_item(1, b"c"));
        assert!(p.insert_item(1, b"a"));
        assert!(p.insert_item(2, b"b"));
        assert!(p.insert_item(4, b"d"));
        assert!(!p.insert_item(6, b"gap"));
        let items: Vec<&[u8]> = (1..=4).map(|off| p.item(off).unwrap()).collect();
        assert_eq!(items, [b"a", b"b", b"c", b"d"]);
    }

    #[test]
    fn add_item_at_places_exact_offsets() {
        let mut p = page();
        assert!(p.add_item_at(1, b"abc"));
        assert!(!p.add_item_at(1, b"again"));
        assert!(!p.add_item_at(3, b"gap"));
        assert!(p.add_item_at(2, b"def"));
        assert_eq!(p.item(2).unwrap(), b"def");
    }

    #[test]
    fn corrupt_headers_are_rejected() {
        let mut p = page();
        p.set_lower(BLCKSZ);
        p.set_upper(100);
        assert!(!p.validate_header());
    }

    #[test]
    fn deleted_index_items_close_the_gap() {
        let mut p = page();
        for i in 1..=5u8 {
            assert!(p.insert_item(i as OffsetNumber, &[i; 20]));
        }
        let before = p.free_space();
        p.delete_items(&[2, 4]);
        assert_eq!(p.max_offset(), 3);
        let items: Vec<u8> = (1..=3).map(|off| p.item(off).unwrap()[0]).collect();
        assert_eq!(items, [1, 3, 5]);
        assert_eq!(p.free_space(), before + 2 * (24 + ITEM_ID_SIZE));
        assert!(p.validate_header());
    }

    #[test]
    fn truncation_drops_trailing_unused_pointers() {
        let mut p = page();
        for _ in 0..3 {
            p.add_item(&[0; 8]).unwrap();
        }
        p.set_item_state(3, LpFlags::Unused);
        p.set_item_state(2, LpFlags::Unused);
        p.truncate_line_pointers();
        assert_eq!(p.max_offset(), 1);
    }
}
