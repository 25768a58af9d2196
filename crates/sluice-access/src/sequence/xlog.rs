//! Sequence WAL records and their redo (PostgreSQL's `XLOG_SEQ_LOG` and
//! `seq_redo`).
//!
//! | info          | blocks                                        | main data |
//! |---------------|-----------------------------------------------|-----------|
//! | `XLOG_SEQ_LOG`| 0: block 0 of the sequence, WILL_INIT; data = the whole state (parameters and counter) | — |
//!
//! Every record carries the complete page contents in a few dozen bytes, so
//! redo rebuilds the page from nothing and never needs a full-page image; a
//! page torn by a crash is simply re-created. The counter logged is the one
//! *after* the values pre-logged by nextval (see `mod.rs`), so replay can only
//! move a sequence past what it handed out, never back.

use super::page::init_page;
use super::SeqState;
use crate::error::{AccessError, Result};
use crate::recovery::redo_block;
use sluice_storage::buffer::BufferPool;
use sluice_wal::DecodedRecord;

/// The state of a sequence page (the only sequence record type).
pub const XLOG_SEQ_LOG: u8 = 0x00;

/// redo -- replays one sequence record.
pub fn redo(pool: &BufferPool, record: &DecodedRecord) -> Result<()> {
    match record.info & 0xF0 {
        XLOG_SEQ_LOG => redo_block(pool, record, 0, |page, data| {
            let state = SeqState::decode(data)?;
            init_page(page, &state)
        }),
        other => Err(AccessError::Corrupt(format!("seq_redo: unknown op code {other:#x}"))),
    }
}
