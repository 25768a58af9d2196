//! Database directories: CREATE DATABASE's copy and DROP DATABASE's removal,
//! crash-safe (the storage half of PostgreSQL 15's `commands/dbcommands.c`
//! with `STRATEGY wal_log`, and `dbase_redo`).
//!
//! A database is a directory `base/<oid>/` holding `PG_VERSION` and the
//! files of its relations. Creating one:
//!
//! 1. [`create_directory`] logs `XLOG_DBASE_CREATE_WAL_LOG`, then makes the
//!    directory and its `PG_VERSION`;
//! 2. [`copy_relation`] copies each relation of the template through the
//!    buffer pool, one WAL-logged full-page image per block, so the copy is
//!    durable like any other change: no checkpoint is needed before or after,
//!    and a crash at any point replays it page by page. The pages read are
//!    the template's current ones (the buffer pool's, not the files'), so
//!    nothing committed but not yet written is missed.
//!
//! The SQL layer inserts the `pg_database` row in the same transaction; if the
//! transaction does not commit, the directory is removed again. A crash before
//! the commit leaves an orphaned directory behind, as in PostgreSQL.
//!
//! [`drop_directory`] (at DROP DATABASE's commit, and in redo) logs
//! `XLOG_DBASE_DROP` and flushes it *before* touching anything: replay of
//! older records may re-create files of the dropped database, and this record
//! is what removes them again. Then it forgets the database's buffers without
//! writing them, closes and unlinks its files, and removes the directory.
//!
//! Locking: none here. The SQL layer guarantees that nobody uses the
//! databases involved (no other sessions connected to the template or to the
//! database being dropped).

use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{ForkNumber, Oid, RelFileLocator, RmgrId, Xid};
use sluice_storage::buffer::{BufferPool, BufferTag};
use sluice_storage::StorageError;
use sluice_wal::{BlockRef, DecodedRecord, RecordBuilder, BLOCK_FORCE_IMAGE};
use std::path::{Path, PathBuf};

/// The major version written to every `PG_VERSION` file (what clients and
/// tools compare).
pub const PG_VERSION: &str = "15";

/// A database directory was created (PostgreSQL's XLOG_DBASE_CREATE_WAL_LOG).
pub const XLOG_DBASE_CREATE_WAL_LOG: u8 = 0x00;
/// A database directory was removed (PostgreSQL's XLOG_DBASE_DROP).
pub const XLOG_DBASE_DROP: u8 = 0x20;

/// The directory of database `db`. sluice has no tablespaces but pg_default
/// (and pg_global for shared catalogs), so every database lives under
/// `base/`; records still carry the tablespace, as PostgreSQL's do.
fn directory(data_dir: &Path, db: Oid) -> PathBuf {
    data_dir.join("base").join(db.to_string())
}

fn encode(spc: Oid, db: Oid) -> Vec<u8> {
    let mut out = Vec::with_capacity(8);
    out.extend_from_slice(&db.to_le_bytes());
    out.extend_from_slice(&spc.to_le_bytes());
    out
}

fn decode(data: &[u8]) -> Result<(Oid, Oid)> {
    let bytes: [u8; 8] = data
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| AccessError::Corrupt("invalid database WAL record".into()))?;
    let db = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
    let spc = u32::from_le_bytes(bytes[4..].try_into().expect("4 bytes"));
    Ok((spc, db))
}

fn io(what: &str, path: &Path, e: std::io::Error) -> AccessError {
    StorageError::io(format!("could not {what} \"{}\"", path.display()), e).into()
}

/// write_version_file -- writes `dir/PG_VERSION`.
pub fn write_version_file(dir: &Path) -> Result<()> {
    let path = dir.join("PG_VERSION");
    std::fs::write(&path, format!("{PG_VERSION}\n")).map_err(|e| io("write file", &path, e))
}

/// Makes the directory and its `PG_VERSION` (also redo's work).
fn make_directory(data_dir: &Path, db: Oid) -> Result<()> {
    let dir = directory(data_dir, db);
    std::fs::create_dir_all(&dir).map_err(|e| io("create directory", &dir, e))?;
    write_version_file(&dir)
}

/// create_directory -- creates database `db`'s directory, WAL-logged.
pub fn create_directory(engine: &Engine, spc: Oid, db: Oid) -> Result<()> {
    let record = RecordBuilder::new(RmgrId::Database, XLOG_DBASE_CREATE_WAL_LOG, Xid::INVALID)
        .with_main_data(encode(spc, db));
    engine.wal().insert(&record)?;
    make_directory(engine.data_dir(), db)
}

/// copy_relation -- copies every fork of relation `src` to `dst` page by
/// page through the buffer pool, logging each page as a full-page image.
/// `interrupted` is polled between pages (cancel).
pub fn copy_relation(
    engine: &Engine,
    src: RelFileLocator,
    dst: RelFileLocator,
    interrupted: &dyn Fn() -> bool,
) -> Result<()> {
    let pool = engine.pool();
    for fork in ForkNumber::ALL {
        if !pool.smgr().exists(src, fork) {
            continue;
        }
        engine.create_relation_fork(dst, fork)?;
        for block in 0..pool.nblocks(src, fork)? {
            if interrupted() {
                return Err(AccessError::Interrupted);
            }
            copy_page(engine, BufferTag::new(src, fork, block), dst)?;
        }
    }
    Ok(())
}

/// Copies one page to the same block of `dst`'s fork (which has exactly
/// `block` pages so far) and logs it.
fn copy_page(engine: &Engine, from: BufferTag, dst: RelFileLocator) -> Result<()> {
    let source = engine.pool().read_buffer(from)?;
    let page = source.read();
    let target = engine.pool().extend(dst, from.fork)?;
    if target.block() != from.block {
        return Err(AccessError::Internal(format!(
            "copy of {dst:?} grew out of step: block {} instead of {}",
            target.block(),
            from.block
        )));
    }
    let mut copy = target.write();
    copy.as_bytes_mut().copy_from_slice(page.as_bytes());
    copy.mark_dirty();
    let end = {
        let block = BlockRef::new(0, dst, from.fork, from.block)
            .with_flags(BLOCK_FORCE_IMAGE)
            .with_page(copy.as_bytes(), copy.hole());
        let record = RecordBuilder::new(RmgrId::Xlog, crate::xlog_records::XLOG_FPI, Xid::INVALID)
            .with_block(block);
        engine.wal().insert(&record)?
    };
    copy.set_lsn(end);
    Ok(())
}

/// drop_directory -- removes database `db`'s directory and everything of it
/// the buffer pool holds, after logging (and flushing) that it does.
pub fn drop_directory(engine: &Engine, spc: Oid, db: Oid) -> Result<()> {
    let record = RecordBuilder::new(RmgrId::Database, XLOG_DBASE_DROP, Xid::INVALID)
        .with_main_data(encode(spc, db));
    let end = engine.wal().insert(&record)?;
    engine.wal().flush(end)?;
    remove_directory(engine.pool(), engine.data_dir(), spc, db)
}

/// The relation numbers with a file in `dir` (`16384`, `16384_fsm`, `16384.1`).
fn relation_numbers(dir: &Path) -> Result<Vec<Oid>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("open directory", dir, e)),
    };
    let mut numbers = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io("read directory", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let digits = name.split(['_', '.']).next().unwrap_or("");
        if let Ok(n) = digits.parse::<Oid>() {
            if !numbers.contains(&n) {
                numbers.push(n);
            }
        }
    }
    Ok(numbers)
}

/// Drops the buffers and files of every relation in the directory, then the
/// directory (also redo's work; a missing directory is already removed).
fn remove_directory(pool: &BufferPool, data_dir: &Path, spc: Oid, db: Oid) -> Result<()> {
    let dir = directory(data_dir, db);
    for rel_number in relation_numbers(&dir)? {
        let rel = RelFileLocator { spc_oid: spc, db_oid: db, rel_number };
        for fork in ForkNumber::ALL {
            pool.drop_relation_buffers(rel, fork, 0);
        }
        pool.smgr().unlink(rel)?;
    }
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io("remove directory", &dir, e)),
    }
}

/// redo -- replays one database record.
pub(crate) fn redo(pool: &BufferPool, data_dir: &Path, record: &DecodedRecord) -> Result<()> {
    let (spc, db) = decode(&record.main_data)?;
    match record.info & 0xF0 {
        XLOG_DBASE_CREATE_WAL_LOG => make_directory(data_dir, db),
        XLOG_DBASE_DROP => remove_directory(pool, data_dir, spc, db),
        other => Err(AccessError::Corrupt(format!("dbase_redo: unknown op code {other:#x}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_file_names_give_relations() {
        assert_eq!(decode(&encode(1663, 16400)).unwrap(), (1663, 16400));
        assert!(decode(&[1, 2, 3]).is_err());
        let dir = tempfile::tempdir().unwrap();
        for name in ["16384", "16384_fsm", "16384.1", "2608", "PG_VERSION", "16390_vm"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let mut numbers = relation_numbers(dir.path()).unwrap();
        numbers.sort();
        assert_eq!(numbers, [2608, 16384, 16390]);
        assert!(relation_numbers(&dir.path().join("missing")).unwrap().is_empty());
    }
}
