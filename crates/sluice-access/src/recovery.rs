//! Startup and crash recovery (PostgreSQL's `xlogrecovery.c` + `xlog.c`'s
//! StartupXLOG).
//!
//! On start the control file names the last checkpoint. Its record says where
//! redo begins (the checkpoint's redo point: every change before it reached the
//! data files before the checkpoint completed). Every record from there to the
//! end of valid WAL is replayed through its resource manager's redo routine; then
//! WAL is opened for appending right after the last valid record, and — if
//! anything was replayed — an end-of-recovery checkpoint makes the result durable
//! so the next crash does not have to replay it again.
//!
//! Redo is single-threaded and runs before any backend exists, so it needs no
//! locks beyond the buffer pool's own; it uses the buffer pool like any backend
//! (a data directory larger than `shared_buffers` recovers fine), with the
//! WAL-before-data rule off: every record being replayed is already on disk.
//!
//! # Page redo rule
//!
//! For each block a record touches ([`redo_block`]): a full-page image replaces
//! the page; WILL_INIT re-creates it; otherwise the change is applied only if the
//! page's LSN is older than the record's end, which makes replay idempotent. The
//! page then carries the record's end LSN. Blocks beyond the end of the file (the
//! crash lost an extension) are recreated as zero pages first.

use crate::database;
use crate::error::{AccessError, Result};
use crate::heap;
use crate::nbtree;
use crate::sequence;
use crate::xlog_records::*;
use sluice_common::{Oid, RmgrId, Xid};
use sluice_storage::buffer::{BufferPool, BufferTag, ReadMode};
use sluice_storage::page::Page;
use sluice_txn::{Clog, MultiXactId, MultiXacts};
use sluice_wal::{read_record_at, ControlFile, DecodedRecord, WalReader};
use std::path::Path;

/// What replay learned, for opening WAL and the transaction manager after it.
pub(crate) struct RecoveryOutcome {
    /// Where the next record goes.
    pub end_of_log: sluice_common::Lsn,
    /// Start of the last valid record.
    pub last_record: sluice_common::Lsn,
    /// Next xid to assign.
    pub next_xid: Xid,
    /// Next OID to hand out.
    pub next_oid: Oid,
    /// Records replayed (the checkpoint record itself included).
    pub records: u64,
    /// The redo point of the checkpoint we started from.
    pub redo: sluice_common::Lsn,
}

/// replay -- runs redo from the control file's checkpoint to the end of WAL.
pub(crate) fn replay(
    data_dir: &Path,
    control: &ControlFile,
    pool: &BufferPool,
    clog: &Clog,
    multixacts: &MultiXacts,
) -> Result<RecoveryOutcome> {
    let wal_dir = data_dir.join("pg_wal");
    let checkpoint_record = read_record_at(&wal_dir, control.checkpoint)?;
    let checkpoint = CheckpointData::decode(&checkpoint_record.main_data)?;
    multixacts.advance(MultiXactId(checkpoint.next_multi), checkpoint.next_multi_offset);
    let mut outcome = RecoveryOutcome {
        end_of_log: checkpoint_record.end_lsn,
        last_record: checkpoint_record.lsn,
        next_xid: checkpoint.next_xid.max(control.next_xid),
        next_oid: checkpoint.next_oid.max(control.next_oid),
        records: 0,
        redo: checkpoint.redo,
    };
    let mut reader = WalReader::new(&wal_dir, checkpoint.redo);
    while let Some(record) = reader.next_record()? {
        if record.xid.is_valid() {
            outcome.next_xid = outcome.next_xid.max(record.xid.next());
        }
        if let Some(oid) = apply(pool, (clog, multixacts), data_dir, &record)? {
            outcome.next_oid = outcome.next_oid.max(oid);
        }
        outcome.records += 1;
    }
    if reader.last_record() < control.checkpoint {
        return Err(AccessError::Corrupt(format!(
            "could not replay up to the checkpoint record at {}",
            control.checkpoint
        )));
    }
    outcome.end_of_log = reader.end_of_log();
    outcome.last_record = reader.last_record();
    Ok(outcome)
}

/// Dispatches one record to its redo routine. Returns an OID high-water mark
/// when the record carries one.
fn apply(
    pool: &BufferPool,
    (clog, multixacts): (&Clog, &MultiXacts),
    data_dir: &Path,
    record: &DecodedRecord,
) -> Result<Option<Oid>> {
    match record.rmgr {
        RmgrId::Xlog => match record.info {
            XLOG_NEXTOID => return Ok(Some(decode_next_oid(&record.main_data)?)),
            XLOG_CHECKPOINT_SHUTDOWN | XLOG_CHECKPOINT_ONLINE => {
                return Ok(Some(CheckpointData::decode(&record.main_data)?.next_oid));
            }
            XLOG_FPI_FOR_HINT | XLOG_FPI => redo_block(pool, record, 0, |_, _| Ok(()))?,
            other => {
                return Err(AccessError::Corrupt(format!("unknown XLOG record type {other:#x}")))
            }
        },
        RmgrId::Xact => sluice_txn::xact::redo(clog, record)?,
        RmgrId::MultiXact => multixacts.redo(record)?,
        RmgrId::Smgr => match record.info {
            XLOG_SMGR_CREATE => {
                let (rel, fork) = decode_smgr_create(&record.main_data)?;
                pool.smgr().create(rel, fork)?;
            }
            XLOG_SMGR_TRUNCATE => {
                let (rel, fork, nblocks) = decode_smgr_truncate(&record.main_data)?;
                truncate_fork(pool, rel, fork, nblocks)?;
                if fork == sluice_common::ForkNumber::Main {
                    truncate_heap_maps(pool, rel, nblocks)?;
                }
            }
            other => {
                return Err(AccessError::Corrupt(format!("unknown SMGR record type {other:#x}")))
            }
        },
        RmgrId::Heap => heap::xlog::redo(pool, record)?,
        RmgrId::Sequence => sequence::xlog::redo(pool, record)?,
        RmgrId::Database => database::redo(pool, data_dir, record)?,
        RmgrId::Btree => nbtree::xlog::redo(pool, record)?,
    }
    Ok(None)
}

/// truncate_fork -- cuts `rel`'s `fork` down to `nblocks` blocks, forgetting
/// the buffers of the blocks cut off (smgrtruncate after
/// DropRelationBuffers). Used by VACUUM after logging it, and by its redo;
/// nobody else may be using those blocks.
pub(crate) fn truncate_fork(
    pool: &BufferPool,
    rel: sluice_common::RelFileLocator,
    fork: sluice_common::ForkNumber,
    nblocks: u32,
) -> Result<()> {
    let relfork = pool.smgr().create(rel, fork)?;
    let _extension = relfork.extension.lock();
    pool.drop_relation_buffers(rel, fork, nblocks);
    relfork.truncate(nblocks)?;
    Ok(())
}

/// truncate_heap_maps -- after a heap's main fork was cut to `nblocks`
/// pages, its visibility map and free space map forget the pages cut off,
/// so that pages added later start with nothing known about them. Used by
/// VACUUM's truncation and by its redo.
pub(crate) fn truncate_heap_maps(
    pool: &BufferPool,
    rel: sluice_common::RelFileLocator,
    nblocks: u32,
) -> Result<()> {
    heap::visibilitymap::truncate(pool, rel, nblocks)?;
    let fsm = sluice_common::ForkNumber::Fsm;
    let keep = sluice_storage::freespace::truncate(pool, rel, nblocks)?;
    if keep < pool.nblocks(rel, fsm)? {
        truncate_fork(pool, rel, fsm, keep)?;
    }
    Ok(())
}

/// redo_block -- applies `change` to block `block_id` of `record` following the
/// page redo rule in the module doc. `change` gets the page and the block data.
pub(crate) fn redo_block(
    pool: &BufferPool,
    record: &DecodedRecord,
    block_id: u8,
    change: impl FnOnce(&mut Page, &[u8]) -> Result<()>,
) -> Result<()> {
    let block = record.block(block_id).ok_or_else(|| {
        AccessError::Corrupt(format!("WAL record at {} lacks block {block_id}", record.lsn))
    })?;
    let relfork = pool.smgr().create(block.rel, block.fork)?;
    {
        let _extension = relfork.extension.lock();
        relfork.extend_to(block.block + 1)?;
    }
    let overwrite = block.will_init || block.image.is_some();
    let mode = if overwrite { ReadMode::Zero } else { ReadMode::Normal };
    let buffer = pool.read_buffer_mode(BufferTag::new(block.rel, block.fork, block.block), mode)?;
    let mut page = buffer.write();
    if let Some(image) = &block.image {
        page.as_bytes_mut().copy_from_slice(&image[..]);
    } else {
        if block.will_init {
            page.init(0);
        } else if page.lsn() >= record.end_lsn {
            return Ok(());
        }
        change(&mut page, &block.data)?;
    }
    page.mark_dirty();
    page.set_lsn(record.end_lsn);
    Ok(())
}
