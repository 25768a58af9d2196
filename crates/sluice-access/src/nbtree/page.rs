//! B-tree page layout: the special space every node carries, the metapage,
//! and the small questions asked of a page (PostgreSQL's `nbtree.h` and
//! `nbtpage.c`).
//!
//! Special space (16 bytes, little-endian), as PostgreSQL's BTPageOpaqueData:
//!
//! | bytes  | field          | meaning                                  |
//! |--------|----------------|------------------------------------------|
//! | 0..4   | `btpo_prev`    | left sibling, or [`P_NONE`]              |
//! | 4..8   | `btpo_next`    | right sibling, or [`P_NONE`]             |
//! | 8..12  | `btpo_level`   | 0 for leaves, counting up to the root    |
//! | 12..14 | `btpo_flags`   | [`BTP_LEAF`], [`BTP_ROOT`], [`BTP_META`], [`BTP_DELETED`], [`BTP_HALF_DEAD`] |
//! | 14..16 | `btpo_cycleid` | reserved for VACUUM                      |
//!
//! Line pointer 1 of a page that has a right sibling is its high key
//! ([`P_HIKEY`]); data items start after it. The rightmost page of a level
//! has no high key, so its items start at 1. On internal pages the first data
//! item is the keyless "minus infinity" pivot.
//!
//! The metapage keeps its fields right after the page header and sets
//! `pd_lower` past them, so full-page images keep them (PostgreSQL does the
//! same).

use crate::common::IndexTuple;
use crate::error::{AccessError, Result};
use sluice_storage::page::{OffsetNumber, Page, HEADER_SIZE};

/// "No page": block 0 is the metapage, so no sibling or root is ever 0.
pub const P_NONE: u32 = 0;
/// The metapage's block.
pub const BTREE_METAPAGE: u32 = 0;
/// Size of the special space.
pub const SPECIAL_SIZE: usize = 16;
/// Line pointer of the high key.
pub const P_HIKEY: OffsetNumber = 1;

/// A leaf page.
pub const BTP_LEAF: u16 = 1 << 0;
/// The root page.
pub const BTP_ROOT: u16 = 1 << 1;
/// A deleted page: unlinked from its level, waiting to be recycled.
pub const BTP_DELETED: u16 = 1 << 2;
/// The metapage.
pub const BTP_META: u16 = 1 << 3;
/// A leaf whose downlink is gone but which is still linked to its siblings:
/// the first of page deletion's two steps (`delete.rs`).
pub const BTP_HALF_DEAD: u16 = 1 << 4;

/// The metapage's magic number (PostgreSQL's BTREE_MAGIC).
pub const BTREE_MAGIC: u32 = 0x053162;
/// The on-disk version: 4, PostgreSQL 12's heap-TID-as-key format.
pub const BTREE_VERSION: u32 = 4;
/// Where the metapage fields start: the page header, MAXALIGNed.
const META_OFFSET: usize = HEADER_SIZE.next_multiple_of(8);
const META_SIZE: usize = 28;

/// The special space of a node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opaque {
    /// Left sibling.
    pub prev: u32,
    /// Right sibling.
    pub next: u32,
    /// Height above the leaves.
    pub level: u32,
    /// BTP_* flags.
    pub flags: u16,
}

impl Opaque {
    /// Reads the special space of `page`.
    pub fn of(page: &Page) -> Opaque {
        let s = page.special_bytes();
        let u32_at = |i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes"));
        Opaque {
            prev: u32_at(0),
            next: u32_at(4),
            level: u32_at(8),
            flags: u16::from_le_bytes([s[12], s[13]]),
        }
    }

    /// Writes it into `page`'s special space.
    pub fn store(&self, page: &mut Page) {
        let s = page.special_bytes_mut();
        s[0..4].copy_from_slice(&self.prev.to_le_bytes());
        s[4..8].copy_from_slice(&self.next.to_le_bytes());
        s[8..12].copy_from_slice(&self.level.to_le_bytes());
        s[12..14].copy_from_slice(&self.flags.to_le_bytes());
    }

    /// A leaf page.
    pub fn is_leaf(&self) -> bool {
        self.flags & BTP_LEAF != 0
    }

    /// The root page.
    pub fn is_root(&self) -> bool {
        self.flags & BTP_ROOT != 0
    }

    /// Deleted (unlinked, to be recycled).
    pub fn is_deleted(&self) -> bool {
        self.flags & BTP_DELETED != 0
    }

    /// Half-dead: out of its parent, still in its level's chain.
    pub fn is_half_dead(&self) -> bool {
        self.flags & BTP_HALF_DEAD != 0
    }

    /// Deleted or half-dead: a scan or search arriving here moves right
    /// (PostgreSQL's P_IGNORE).
    pub fn is_ignored(&self) -> bool {
        self.flags & (BTP_DELETED | BTP_HALF_DEAD) != 0
    }

    /// The last page of its level (no high key).
    pub fn is_rightmost(&self) -> bool {
        self.next == P_NONE
    }

    /// The first line pointer holding data rather than the high key.
    pub fn first_data(&self) -> OffsetNumber {
        if self.is_rightmost() {
            P_HIKEY
        } else {
            P_HIKEY + 1
        }
    }
}

/// init_node -- formats `page` as an empty node described by `opaque`.
pub fn init_node(page: &mut Page, opaque: Opaque) {
    page.init(SPECIAL_SIZE);
    opaque.store(page);
}

/// The metapage's contents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// The root, or [`P_NONE`] while the index is empty.
    pub root: u32,
    /// The root's level.
    pub level: u32,
    /// Deleted pages the last VACUUM left out of the free space map because
    /// scans might still reach them (PostgreSQL's
    /// `btm_last_cleanup_num_delpages`): a VACUUM with nothing to delete
    /// still scans the index when there are enough of them to recycle.
    pub last_cleanup_num_delpages: u32,
}

impl Meta {
    /// Reads the metapage, checking its magic number.
    pub fn of(page: &Page) -> Result<Meta> {
        let b = page.as_bytes();
        let u32_at = |i: usize| {
            u32::from_le_bytes(b[META_OFFSET + i..META_OFFSET + i + 4].try_into().expect("4"))
        };
        if page.is_new() || u32_at(0) != BTREE_MAGIC {
            return Err(AccessError::Corrupt("index is not a btree".into()));
        }
        if u32_at(4) != BTREE_VERSION {
            return Err(AccessError::Corrupt(format!(
                "version mismatch in index: file version {}, current version {BTREE_VERSION}",
                u32_at(4)
            )));
        }
        // Zero in metapages written before the field existed.
        Ok(Meta { root: u32_at(8), level: u32_at(12), last_cleanup_num_delpages: u32_at(24) })
    }

    /// init_page -- formats `page` as a metapage holding `self`. The fast
    /// root fields PostgreSQL keeps are written equal to the true root.
    pub fn init_page(&self, page: &mut Page) {
        init_node(page, Opaque { flags: BTP_META, ..Opaque::default() });
        let fields = [
            BTREE_MAGIC,
            BTREE_VERSION,
            self.root,
            self.level,
            self.root,
            self.level,
            self.last_cleanup_num_delpages,
        ];
        let b = page.as_bytes_mut();
        for (i, v) in fields.iter().enumerate() {
            b[META_OFFSET + 4 * i..META_OFFSET + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let lower = (META_OFFSET + META_SIZE) as u16;
        b[12..14].copy_from_slice(&lower.to_le_bytes());
    }
}

/// The index tuple at `off`; a missing one is corruption.
pub fn tuple_at(page: &Page, off: OffsetNumber) -> Result<IndexTuple<'_>> {
    let bytes = page
        .item(off)
        .ok_or_else(|| AccessError::Corrupt(format!("btree page has no item at offset {off}")))?;
    Ok(IndexTuple::new(bytes)?)
}

/// The high key of a page that has one.
pub fn high_key<'p>(page: &'p Page, opaque: &Opaque) -> Result<Option<IndexTuple<'p>>> {
    if opaque.is_rightmost() {
        return Ok(None);
    }
    tuple_at(page, P_HIKEY).map(Some)
}

/// Usable bytes of an empty node: everything between header and special.
pub fn usable_space() -> usize {
    sluice_common::BLCKSZ - HEADER_SIZE - SPECIAL_SIZE
}

/// The largest entry a B-tree accepts: a third of a page after overhead, so a
/// split can always place a new item and both high keys (BTMaxItemSize).
pub fn max_item_size() -> usize {
    let per_page = usable_space() - 3 * sluice_storage::page::ITEM_ID_SIZE;
    (per_page / 3) & !7
}
