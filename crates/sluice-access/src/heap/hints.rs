//! Setting hint bits (PostgreSQL's SetHintBits + MarkBufferDirtyHint).
//!
//! Hint bits cache a transaction's final outcome in a tuple header so later
//! readers skip the status lookup. They are not WAL-logged, which makes two
//! rules necessary:
//!
//! * **Torn pages.** If a checkpoint happened since the page was last logged, a
//!   torn write of the hinted page could not be repaired from WAL, and its
//!   checksum would fail. So the first hint after a checkpoint logs a full-page
//!   image (`XLOG_FPI_FOR_HINT`), as PostgreSQL does with checksums on.
//! * **Asynchronous commit.** A hint may say "committed" before the commit record
//!   is on disk (`synchronous_commit = off`). The page must not reach disk before
//!   that record, or a crash could leave a committed-looking row whose
//!   transaction never committed. Stamping the page LSN with the current end of
//!   WAL (which is past every commit record that could be hinted) makes the
//!   WAL-before-data rule flush the commit record first. PostgreSQL instead
//!   refuses to set such hints; stamping keeps the hint and costs at most a
//!   slightly earlier WAL flush.
//!
//! Callers hold the page exclusively: readers with a shared lock collect hints
//! and apply them only if `try_write` succeeds, so a busy page is skipped rather
//! than waited for.

use crate::common::htup::HeapTupleHeader;
use crate::engine::Engine;
use crate::error::Result;
use crate::xlog_records::XLOG_FPI_FOR_HINT;
use sluice_common::{RmgrId, Xid};
use sluice_storage::buffer::{BufferTag, BufferWriteGuard};
use sluice_wal::{BlockRef, RecordBuilder, BLOCK_FORCE_IMAGE};

/// Hint bits learned about one tuple, with the xids they are about: the page
/// may have been unlocked between learning and setting them, and a hint must
/// never land on a different tuple that reused the line pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TupleHint {
    /// The tuple's line pointer.
    pub offset: u16,
    /// Infomask bits to set.
    pub bits: u16,
    /// The tuple's xmin when the hint was learned.
    pub xmin: Xid,
    /// The tuple's xmax when the hint was learned.
    pub xmax: Xid,
}

impl TupleHint {
    /// The hint `bits` for `tuple` at `offset`.
    pub fn new(offset: u16, tuple: &[u8], bits: u16) -> Result<TupleHint> {
        let hdr = HeapTupleHeader::new(tuple)?;
        Ok(TupleHint { offset, bits, xmin: hdr.xmin(), xmax: hdr.xmax() })
    }
}

/// set_hints -- sets each hint whose tuple is still the one it was learned on,
/// on the exclusively locked page, then marks it dirty under the rules above.
pub fn set_hints(
    engine: &Engine,
    tag: BufferTag,
    page: &mut BufferWriteGuard<'_>,
    hints: &[TupleHint],
) -> Result<()> {
    let mut changed = false;
    for hint in hints {
        if let Some(item) = page.item_mut(hint.offset) {
            let mut hdr = HeapTupleHeader::new(item)?;
            let same_tuple = hdr.xmin() == hint.xmin && hdr.xmax() == hint.xmax;
            if same_tuple && hdr.infomask() & hint.bits != hint.bits {
                hdr.set_hint(hint.bits);
                changed = true;
            }
        }
    }
    if changed {
        mark_dirty_hint(engine, tag, page)?;
    }
    Ok(())
}

/// mark_dirty_hint -- dirties a page changed only by hints (see module doc).
pub fn mark_dirty_hint(
    engine: &Engine,
    tag: BufferTag,
    page: &mut BufferWriteGuard<'_>,
) -> Result<()> {
    let wal = engine.wal();
    page.mark_dirty();
    if page.lsn() <= wal.redo_ptr() {
        let end = {
            let record = RecordBuilder::new(RmgrId::Xlog, XLOG_FPI_FOR_HINT, Xid::INVALID)
                .with_block(
                    BlockRef::new(0, tag.rel, tag.fork, tag.block)
                        .with_page(page.as_bytes(), page.hole())
                        .with_flags(BLOCK_FORCE_IMAGE),
                );
            wal.insert(&record)?
        };
        page.set_lsn(end);
    }
    let end_of_wal = wal.insert_lsn();
    if page.lsn() < end_of_wal {
        page.set_lsn(end_of_wal);
    }
    Ok(())
}
