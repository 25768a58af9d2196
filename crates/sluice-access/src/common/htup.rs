//! The heap tuple header: who created a row version, who deleted it, and how the
//! rest of the tuple is laid out (PostgreSQL's `access/htup_details.h`).
//!
//! Every row version in a heap page starts with this fixed header. It is read and
//! written *in place*: a tuple lives inside a pinned page buffer, and the heap
//! access method hands this module the tuple's exact bytes. Nothing is copied or
//! decoded up front; each getter reads its field when asked.
//!
//! # Layout
//!
//! All integers are little-endian. The layout is fixed by the project; WAL records
//! and pages on disk depend on it.
//!
//! ```text
//!  offset  size  field          meaning
//!  0       8     t_xmin         inserting transaction
//!  8       8     t_xmax         deleting or locking transaction (or MultiXact), 0 if none
//!  16      4     t_cid          command id: cmin, cmax or a combo command id
//!  20      4     t_ctid.block   \ this version's own address, or the next version's
//!  24      2     t_ctid.offset  / after an UPDATE (the chain HOT and UPDATE follow)
//!  26      2     t_infomask2    attribute count (low 11 bits) + HOT/key flags
//!  28      2     t_infomask     NULLs/varwidth present, hint bits, lock bits
//!  30      1     t_hoff         offset of the first attribute (MAXALIGNed)
//!  31      n     t_bits         null bitmap, only if HEAP_HASNULL
//! ```
//!
//! PostgreSQL's header is 23 bytes plus bitmap (so `t_hoff` is usually 24) because
//! its xids are 32 bits. sluice's are 64 bits ([`Xid`]): they never wrap around, so
//! there is no anti-wraparound freezing and no "database is not accepting
//! commands" emergency. The price is 8 bytes per row version, and nothing else:
//! with `t_bits` starting at 31, a tuple without NULLs has `t_hoff` 32, and up to
//! eight attributes with NULLs still fit their one bitmap byte before 32.
//!
//! # The null bitmap
//!
//! Present only when some attribute is NULL (`HEAP_HASNULL`): one bit per
//! attribute, attribute `i` (0-based) in bit `i % 8` of byte `i / 8`, and, as in
//! PostgreSQL, a *set* bit means NOT NULL. Attributes past the tuple's own count
//! (columns added by `ALTER TABLE ... ADD COLUMN` after the row was written) read
//! as NULL.
//!
//! # Hint bits
//!
//! `HEAP_XMIN_COMMITTED` and friends cache the outcome of a commit-log lookup. They
//! may be set by any reader holding only a share lock on the buffer and are not
//! WAL-logged: losing one costs a lookup, never correctness. Everything else in the
//! header changes only under an exclusive buffer lock, with WAL.
//!
//! This module never allocates and never panics on a tuple of at least
//! [`SIZEOF_HEAP_TUPLE_HEADER`] bytes, whatever those bytes are.

use sluice_common::{maxalign, ItemPointer, Xid, BLCKSZ, MAXIMUM_ALIGNOF};

use super::error::{corrupt, Result};

/// Bytes before the null bitmap (PostgreSQL's `SizeofHeapTupleHeader`, which is 23).
pub const SIZEOF_HEAP_TUPLE_HEADER: usize = 31;

/// Size of a heap page's header in front of its line pointers (PageHeaderData).
const SIZE_OF_PAGE_HEADER: usize = 24;
/// Size of one line pointer (ItemIdData).
const SIZE_OF_ITEM_ID: usize = 4;

/// Largest tuple, MAXALIGNed, that fits on an empty heap page next to its line
/// pointer (PostgreSQL's `MaxHeapTupleSize`): 8160 with 8 kB pages.
pub const MAX_HEAP_TUPLE_SIZE: usize =
    (BLCKSZ - SIZE_OF_PAGE_HEADER - SIZE_OF_ITEM_ID) & !(MAXIMUM_ALIGNOF - 1);

/// Most columns a table may have (PostgreSQL's `MaxHeapAttributeNumber`); the
/// bitmap of that many still leaves room for data in a page.
pub const MAX_HEAP_ATTRIBUTE_NUMBER: usize = 1600;

// ---- t_infomask ----

/// Some attribute is NULL: the null bitmap is present.
pub const HEAP_HASNULL: u16 = 0x0001;
/// Some attribute is a varlena (its width varies).
pub const HEAP_HASVARWIDTH: u16 = 0x0002;
/// Some attribute is stored out of line (TOAST; not produced yet).
pub const HEAP_HASEXTERNAL: u16 = 0x0004;
/// xmax holds a key-share lock.
pub const HEAP_XMAX_KEYSHR_LOCK: u16 = 0x0010;
/// t_cid is a combo command id (cmin and cmax of one transaction).
pub const HEAP_COMBOCID: u16 = 0x0020;
/// xmax holds an exclusive lock.
pub const HEAP_XMAX_EXCL_LOCK: u16 = 0x0040;
/// xmax only locked the row; it did not update or delete it.
pub const HEAP_XMAX_LOCK_ONLY: u16 = 0x0080;
/// xmax holds a share lock (both lock bits, as PostgreSQL encodes it).
pub const HEAP_XMAX_SHR_LOCK: u16 = HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK;
/// All lock-strength bits.
pub const HEAP_LOCK_MASK: u16 = HEAP_XMAX_SHR_LOCK | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK;
/// Hint: xmin is known committed.
pub const HEAP_XMIN_COMMITTED: u16 = 0x0100;
/// Hint: xmin is known aborted.
pub const HEAP_XMIN_INVALID: u16 = 0x0200;
/// xmin is frozen: visible to everyone, the commit log need not be asked.
pub const HEAP_XMIN_FROZEN: u16 = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID;
/// Hint: xmax is known committed.
pub const HEAP_XMAX_COMMITTED: u16 = 0x0400;
/// Hint: xmax is known aborted, or there is no xmax.
pub const HEAP_XMAX_INVALID: u16 = 0x0800;
/// xmax is a MultiXact id, not a transaction id.
pub const HEAP_XMAX_IS_MULTI: u16 = 0x1000;
/// This version was created by an UPDATE.
pub const HEAP_UPDATED: u16 = 0x2000;
/// Every bit describing xmax; cleared together when xmax is replaced.
pub const HEAP_XMAX_BITS: u16 = HEAP_XMAX_COMMITTED
    | HEAP_XMAX_INVALID
    | HEAP_XMAX_IS_MULTI
    | HEAP_LOCK_MASK
    | HEAP_XMAX_LOCK_ONLY;
/// Bits about visibility, as opposed to layout; not copied to a new version.
/// (0x4000 and 0x8000, PostgreSQL's pre-9.0 HEAP_MOVED bits, are unused.)
pub const HEAP_XACT_MASK: u16 = 0xFFF0;

// ---- t_infomask2 ----

/// Low 11 bits of t_infomask2: the number of attributes in the tuple.
pub const HEAP_NATTS_MASK: u16 = 0x07FF;
/// An UPDATE or DELETE changed (or removed) a key column of this version.
pub const HEAP_KEYS_UPDATED: u16 = 0x2000;
/// This version was updated by a HOT update: its successor is heap-only.
pub const HEAP_HOT_UPDATED: u16 = 0x4000;
/// This is a heap-only tuple: no index entry points at it directly.
pub const HEAP_ONLY_TUPLE: u16 = 0x8000;
/// Bits of t_infomask2 about visibility; not copied to a new version.
pub const HEAP2_XACT_MASK: u16 = 0xE000;

// Field offsets, in layout order.
const OFF_XMIN: usize = 0;
const OFF_XMAX: usize = 8;
const OFF_CID: usize = 16;
const OFF_CTID_BLOCK: usize = 20;
const OFF_CTID_OFFSET: usize = 24;
const OFF_INFOMASK2: usize = 26;
const OFF_INFOMASK: usize = 28;
const OFF_HOFF: usize = 30;

/// Bytes of null bitmap for `natts` attributes (PostgreSQL's `BITMAPLEN`).
pub const fn bitmap_len(natts: usize) -> usize {
    natts.div_ceil(8)
}

/// The `t_hoff` of a tuple with `natts` attributes: header plus (if there are
/// NULLs) bitmap, MAXALIGNed so the first attribute can have any alignment.
pub const fn compute_hoff(natts: usize, has_nulls: bool) -> usize {
    let bitmap = if has_nulls { bitmap_len(natts) } else { 0 };
    maxalign(SIZEOF_HEAP_TUPLE_HEADER + bitmap)
}

/// A view of a tuple's header over its bytes: `B` is `&[u8]` to read, `&mut [u8]`
/// (or `Vec<u8>`) to write as well. The bytes are the whole tuple, header first.
#[derive(Clone, Copy, Debug)]
pub struct HeapTupleHeader<B>(B);

/// A header view that can be written (PostgreSQL's `HeapTupleHeader` under an
/// exclusive buffer lock).
pub type HeapTupleHeaderMut<'a> = HeapTupleHeader<&'a mut [u8]>;

impl<B: AsRef<[u8]>> HeapTupleHeader<B> {
    /// A view over `tuple`, which must hold at least the fixed header. Nothing
    /// else is checked here; `deform_tuple` validates the rest.
    pub fn new(tuple: B) -> Result<Self> {
        let len = tuple.as_ref().len();
        if len < SIZEOF_HEAP_TUPLE_HEADER {
            return Err(corrupt!("tuple of {len} bytes is shorter than its header"));
        }
        Ok(HeapTupleHeader(tuple))
    }

    /// The tuple's bytes, header included.
    pub fn bytes(&self) -> &[u8] {
        self.0.as_ref()
    }

    /// Gives back the underlying buffer.
    pub fn into_inner(self) -> B {
        self.0
    }

    /// The `N` bytes at `off`; in bounds because `new` checked the header length.
    fn field<const N: usize>(&self, off: usize) -> [u8; N] {
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes()[off..off + N]);
        out
    }

    /// The inserting transaction.
    pub fn xmin(&self) -> Xid {
        Xid(u64::from_le_bytes(self.field(OFF_XMIN)))
    }

    /// The deleting, updating or locking transaction (or MultiXact), or invalid.
    pub fn xmax(&self) -> Xid {
        Xid(u64::from_le_bytes(self.field(OFF_XMAX)))
    }

    /// The command id: cmin, cmax, or a combo id if [`HEAP_COMBOCID`] is set.
    pub fn cid(&self) -> u32 {
        u32::from_le_bytes(self.field(OFF_CID))
    }

    /// This version's address, or its successor's after an update.
    pub fn ctid(&self) -> ItemPointer {
        let block = u32::from_le_bytes(self.field(OFF_CTID_BLOCK));
        ItemPointer::new(block, u16::from_le_bytes(self.field(OFF_CTID_OFFSET)))
    }

    /// The raw t_infomask2 (attribute count plus HOT/key flags).
    pub fn infomask2(&self) -> u16 {
        u16::from_le_bytes(self.field(OFF_INFOMASK2))
    }

    /// The raw t_infomask (layout flags, hint bits, lock bits).
    pub fn infomask(&self) -> u16 {
        u16::from_le_bytes(self.field(OFF_INFOMASK))
    }

    /// Number of attributes stored in this tuple.
    pub fn natts(&self) -> usize {
        (self.infomask2() & HEAP_NATTS_MASK) as usize
    }

    /// Offset of the first attribute's data.
    pub fn hoff(&self) -> usize {
        self.bytes()[OFF_HOFF] as usize
    }

    /// Whether some attribute is NULL (the bitmap is present).
    pub fn has_nulls(&self) -> bool {
        self.infomask() & HEAP_HASNULL != 0
    }

    /// Whether some attribute is a varlena.
    pub fn has_varwidth(&self) -> bool {
        self.infomask() & HEAP_HASVARWIDTH != 0
    }

    /// The null bitmap bytes (between the fixed header and `t_hoff`), if present.
    pub fn null_bitmap(&self) -> Option<&[u8]> {
        let end = self.hoff().min(self.bytes().len());
        self.has_nulls().then(|| self.bytes().get(SIZEOF_HEAP_TUPLE_HEADER..end).unwrap_or(&[]))
    }

    /// Whether 0-based attribute `i` is NULL. Attributes beyond the tuple's own
    /// count are NULL; so, defensively, is any whose bitmap byte is missing.
    pub fn att_is_null(&self, i: usize) -> bool {
        if i >= self.natts() {
            return true;
        }
        match self.null_bitmap() {
            None => false,
            Some(bits) => bits.get(i / 8).is_none_or(|byte| byte & (1 << (i % 8)) == 0),
        }
    }

    /// Hint: xmin is known committed (or frozen).
    pub fn xmin_committed(&self) -> bool {
        self.infomask() & HEAP_XMIN_COMMITTED != 0
    }

    /// Hint: xmin is known aborted (and the tuple is not frozen).
    pub fn xmin_invalid(&self) -> bool {
        self.infomask() & HEAP_XMIN_FROZEN == HEAP_XMIN_INVALID
    }

    /// xmin is frozen: visible to every snapshot.
    pub fn xmin_frozen(&self) -> bool {
        self.infomask() & HEAP_XMIN_FROZEN == HEAP_XMIN_FROZEN
    }

    /// Hint: xmax is known committed.
    pub fn xmax_committed(&self) -> bool {
        self.infomask() & HEAP_XMAX_COMMITTED != 0
    }

    /// Hint: xmax is known aborted, or there is none.
    pub fn xmax_invalid(&self) -> bool {
        self.infomask() & HEAP_XMAX_INVALID != 0
    }

    /// xmax is a MultiXact id.
    pub fn xmax_is_multi(&self) -> bool {
        self.infomask() & HEAP_XMAX_IS_MULTI != 0
    }

    /// xmax only locked the row. (PostgreSQL also accepts a pre-9.3 encoding
    /// here for pg_upgraded data; sluice has no such data.)
    pub fn xmax_is_locked_only(&self) -> bool {
        self.infomask() & HEAP_XMAX_LOCK_ONLY != 0
    }

    /// This version was HOT-updated: its successor is on the same page, unindexed.
    pub fn is_hot_updated(&self) -> bool {
        self.infomask2() & HEAP_HOT_UPDATED != 0
    }

    /// This is a heap-only tuple, reachable only through its HOT chain.
    pub fn is_heap_only(&self) -> bool {
        self.infomask2() & HEAP_ONLY_TUPLE != 0
    }

    /// The update that superseded this version changed a key column.
    pub fn keys_updated(&self) -> bool {
        self.infomask2() & HEAP_KEYS_UPDATED != 0
    }
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> HeapTupleHeader<B> {
    /// Overwrites the `N` bytes at `off`; in bounds because `new` checked.
    fn set_field<const N: usize>(&mut self, off: usize, bytes: [u8; N]) {
        self.0.as_mut()[off..off + N].copy_from_slice(&bytes);
    }

    /// Sets the inserting transaction.
    pub fn set_xmin(&mut self, xid: Xid) {
        self.set_field(OFF_XMIN, xid.0.to_le_bytes());
    }

    /// Sets the deleting, updating or locking transaction.
    pub fn set_xmax(&mut self, xid: Xid) {
        self.set_field(OFF_XMAX, xid.0.to_le_bytes());
    }

    /// Sets the command id.
    pub fn set_cid(&mut self, cid: u32) {
        self.set_field(OFF_CID, cid.to_le_bytes());
    }

    /// Points ctid at `tid` (this version, or its successor).
    pub fn set_ctid(&mut self, tid: ItemPointer) {
        self.set_field(OFF_CTID_BLOCK, tid.block.to_le_bytes());
        self.set_field(OFF_CTID_OFFSET, tid.offset.to_le_bytes());
    }

    /// Replaces t_infomask2 wholesale.
    pub fn set_infomask2(&mut self, bits: u16) {
        self.set_field(OFF_INFOMASK2, bits.to_le_bytes());
    }

    /// Replaces t_infomask wholesale.
    pub fn set_infomask(&mut self, bits: u16) {
        self.set_field(OFF_INFOMASK, bits.to_le_bytes());
    }

    /// Sets the attribute count, keeping the flag bits of t_infomask2.
    ///
    /// Panics if `natts` exceeds [`HEAP_NATTS_MASK`]: a caller bug, since tables
    /// are limited to [`MAX_HEAP_ATTRIBUTE_NUMBER`] columns.
    pub fn set_natts(&mut self, natts: usize) {
        assert!(natts <= HEAP_NATTS_MASK as usize, "{natts} attributes do not fit t_infomask2");
        self.set_infomask2((self.infomask2() & !HEAP_NATTS_MASK) | natts as u16);
    }

    /// Sets the offset of the first attribute.
    pub fn set_hoff(&mut self, hoff: u8) {
        self.0.as_mut()[OFF_HOFF] = hoff;
    }

    /// ORs hint `bits` into t_infomask. Allowed under a share lock, unlogged: see
    /// the module docs.
    pub fn set_hint(&mut self, bits: u16) {
        self.set_infomask(self.infomask() | bits);
    }

    /// Clears `bits` of t_infomask (e.g. [`HEAP_XMAX_BITS`] before a new xmax).
    pub fn clear_infomask_bits(&mut self, bits: u16) {
        self.set_infomask(self.infomask() & !bits);
    }

    /// ORs `bits` into t_infomask2 (e.g. [`HEAP_HOT_UPDATED`], [`HEAP_ONLY_TUPLE`]).
    pub fn set_infomask2_bits(&mut self, bits: u16) {
        self.set_infomask2(self.infomask2() | bits);
    }

    /// Clears `bits` of t_infomask2.
    pub fn clear_infomask2_bits(&mut self, bits: u16) {
        self.set_infomask2(self.infomask2() & !bits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_at_fixed_offsets() {
        let mut buf = [0u8; 40];
        let mut h = HeapTupleHeader::new(&mut buf[..]).unwrap();
        h.set_xmin(Xid(0x0102_0304_0506_0708));
        h.set_xmax(Xid(0x1112_1314_1516_1718));
        h.set_cid(0x2122_2324);
        h.set_ctid(ItemPointer::new(0x3132_3334, 0x4142));
        h.set_infomask2(HEAP_HOT_UPDATED | 3);
        h.set_infomask(HEAP_HASNULL | HEAP_XMIN_COMMITTED);
        h.set_hoff(32);
        assert_eq!(h.xmin(), Xid(0x0102_0304_0506_0708));
        assert_eq!(h.xmax(), Xid(0x1112_1314_1516_1718));
        assert_eq!(h.cid(), 0x2122_2324);
        assert_eq!(h.ctid(), ItemPointer::new(0x3132_3334, 0x4142));
        assert_eq!((h.natts(), h.hoff()), (3, 32));
        assert!(h.has_nulls() && h.xmin_committed() && h.is_hot_updated());
        assert_eq!(&buf[0..8], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(&buf[8..16], &[0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11]);
        assert_eq!(&buf[16..20], &[0x24, 0x23, 0x22, 0x21]);
        assert_eq!(&buf[20..26], &[0x34, 0x33, 0x32, 0x31, 0x42, 0x41]);
        assert_eq!(&buf[26..28], &[3, 0x40]);
        assert_eq!(&buf[28..31], &[0x01, 0x01, 32]);
    }

    #[test]
    fn hoff_is_32_up_to_eight_nullable_attrs() {
        assert_eq!(compute_hoff(100, false), 32);
        assert_eq!(compute_hoff(1, true), 32);
        assert_eq!(compute_hoff(8, true), 32);
        assert_eq!(compute_hoff(9, true), 40);
        assert_eq!(compute_hoff(72, true), 40);
        assert_eq!(compute_hoff(73, true), 48);
    }

    #[test]
    fn max_heap_tuple_size_is_pg_value() {
        assert_eq!(MAX_HEAP_TUPLE_SIZE, 8160);
    }

    #[test]
    fn natts_keeps_flags_and_hints_accumulate() {
        let mut buf = [0u8; 32];
        let mut h = HeapTupleHeaderMut::new(&mut buf[..]).unwrap();
        h.set_infomask2_bits(HEAP_ONLY_TUPLE | HEAP_KEYS_UPDATED);
        h.set_natts(1600);
        assert_eq!(h.natts(), 1600);
        assert!(h.is_heap_only() && h.keys_updated() && !h.is_hot_updated());
        h.clear_infomask2_bits(HEAP_ONLY_TUPLE);
        assert!(!h.is_heap_only() && h.natts() == 1600);

        h.set_hint(HEAP_XMIN_INVALID);
        assert!(h.xmin_invalid() && !h.xmin_frozen());
        h.set_hint(HEAP_XMIN_COMMITTED);
        assert!(h.xmin_frozen() && !h.xmin_invalid());
        h.set_hint(HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_IS_MULTI);
        assert!(h.xmax_is_locked_only() && h.xmax_is_multi());
        h.clear_infomask_bits(HEAP_XMAX_BITS);
        assert_eq!(h.infomask(), HEAP_XMIN_FROZEN);
        h.set_hint(HEAP_XMAX_INVALID);
        assert!(h.xmax_invalid() && !h.xmax_committed());
    }

    #[test]
    fn null_bitmap_bit_set_means_not_null() {
        let mut buf = [0u8; 40];
        buf[31] = 0b1111_1101; // attribute 1 is NULL
        buf[32] = 0b0000_0001; // attribute 8 present, 9 NULL
        let mut h = HeapTupleHeader::new(&mut buf[..]).unwrap();
        h.set_natts(10);
        h.set_infomask(HEAP_HASNULL);
        h.set_hoff(40);
        assert!(!h.att_is_null(0) && h.att_is_null(1) && !h.att_is_null(8));
        assert!(h.att_is_null(9) && h.att_is_null(10), "beyond natts reads NULL");
        h.clear_infomask_bits(HEAP_HASNULL);
        assert!(!h.att_is_null(1) && h.null_bitmap().is_none());
    }

    #[test]
    fn short_buffers_are_rejected_and_garbage_never_panics() {
        assert!(HeapTupleHeader::new(&[0u8; 30][..]).is_err());
        let h = HeapTupleHeader::new([0xFFu8; 31]).unwrap();
        assert_eq!(h.natts(), 0x7FF);
        assert!(h.att_is_null(3), "bitmap byte past the buffer reads as NULL");
    }
}
