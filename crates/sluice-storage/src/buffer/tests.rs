//! Buffer pool tests: eviction with a pool much smaller than the data,
//! concurrent readers and writers, the WAL-before-data rule, checksums, bulk
//! reads through a ring.

use super::*;
use crate::smgr::Smgr;
use crate::StorageError;
use sluice_common::{ForkNumber, Lsn, RelFileLocator, RmgrId, Xid};
use sluice_wal::{RecordBuilder, Wal, WalOptions, FIRST_LSN};
use std::sync::Arc;

const REL: RelFileLocator = RelFileLocator { spc_oid: 1663, db_oid: 1, rel_number: 16384 };

fn pool(dir: &std::path::Path, nbuffers: usize) -> BufferPool {
    let smgr = Arc::new(Smgr::new(dir));
    smgr.create(REL, ForkNumber::Main).unwrap();
    BufferPool::new(smgr, nbuffers)
}

/// Fills block `i` with a recognisable pattern.
fn stamp(pool: &BufferPool, block: u32, value: u8) {
    let buf = pool.read_buffer(BufferTag::new(REL, ForkNumber::Main, block)).unwrap();
    let mut page = buf.write();
    page.init(0);
    page.add_item(&[value; 100]).unwrap();
    page.mark_dirty();
}

fn value_of(pool: &BufferPool, block: u32) -> u8 {
    let buf = pool.read_buffer(BufferTag::new(REL, ForkNumber::Main, block)).unwrap();
    let page = buf.read();
    page.item(1).unwrap()[0]
}

#[test]
fn data_ten_times_the_pool_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(dir.path(), 16);
    for i in 0..160u32 {
        let buf = pool.extend(REL, ForkNumber::Main).unwrap();
        assert_eq!(buf.block(), i);
        drop(buf);
        stamp(&pool, i, (i % 251) as u8);
    }
    for i in (0..160u32).rev() {
        assert_eq!(value_of(&pool, i), (i % 251) as u8);
    }
    let stats = pool.stats();
    assert!(stats.writes >= 140, "evictions wrote dirty pages: {stats:?}");
    assert!(stats.reads >= 140, "evicted pages were read back: {stats:?}");
    // Everything reaches disk at a checkpoint, and a new pool sees it.
    pool.flush_all().unwrap();
    let again = BufferPool::new(Arc::new(Smgr::new(dir.path())), 16);
    assert_eq!(value_of(&again, 77), 77);
}

#[test]
fn concurrent_readers_and_writers_with_a_tiny_pool() {
    let dir = tempfile::tempdir().unwrap();
    let pool = Arc::new(pool(dir.path(), 16));
    for i in 0..64u32 {
        drop(pool.extend(REL, ForkNumber::Main).unwrap());
        stamp(&pool, i, 0);
    }
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                // Each thread owns the blocks congruent to t mod 4, bumps a
                // counter in them, and reads the others.
                for round in 1..=20u8 {
                    for block in (t..64).step_by(4) {
                        let buf =
                            pool.read_buffer(BufferTag::new(REL, ForkNumber::Main, block)).unwrap();
                        let mut page = buf.write();
                        page.item_mut(1).unwrap()[0] = round;
                        page.mark_dirty();
                    }
                    for block in 0..64 {
                        let _ = value_of(&pool, block);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    for block in 0..64 {
        assert_eq!(value_of(&pool, block), 20);
    }
}

#[test]
fn all_pinned_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(dir.path(), 16);
    let pins: Vec<_> = (0..16).map(|_| pool.extend(REL, ForkNumber::Main).unwrap()).collect();
    assert!(matches!(pool.extend(REL, ForkNumber::Main), Err(StorageError::NoUnpinnedBuffers)));
    drop(pins);
    assert!(pool.extend(REL, ForkNumber::Main).is_ok());
}

#[test]
fn wal_is_flushed_before_a_page_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let wal_dir = dir.path().join("pg_wal");
    std::fs::create_dir_all(&wal_dir).unwrap();
    let wal = Arc::new(
        Wal::open(&wal_dir, FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions::default()).unwrap(),
    );
    let pool = pool(dir.path(), 16);
    pool.set_wal(wal.clone());
    let buf = pool.extend(REL, ForkNumber::Main).unwrap();
    let lsn = {
        let mut page = buf.write();
        page.init(0);
        page.mark_dirty();
        let end = wal
            .insert(&RecordBuilder::new(RmgrId::Heap, 0, Xid(5)).with_main_data(vec![1; 64]))
            .unwrap();
        page.set_lsn(end);
        end
    };
    drop(buf);
    assert!(wal.flushed_lsn() < lsn, "nothing flushed the record yet");
    pool.flush_all().unwrap();
    assert!(wal.flushed_lsn() >= lsn, "writing the page flushed WAL first");
}

#[test]
fn corrupted_pages_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(dir.path(), 16);
    drop(pool.extend(REL, ForkNumber::Main).unwrap());
    stamp(&pool, 0, 42);
    pool.flush_all().unwrap();
    let path = pool.smgr().fork_path(REL, ForkNumber::Main);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8000] ^= 0xFF;
    std::fs::write(&path, bytes).unwrap();
    let fresh = BufferPool::new(Arc::new(Smgr::new(dir.path())), 16);
    let err = fresh.read_buffer(BufferTag::new(REL, ForkNumber::Main, 0)).err().unwrap();
    assert_eq!(err.sqlstate(), "XX001");
    assert!(err.to_string().starts_with("invalid page in block 0 of relation"), "{err}");
}

#[test]
fn dropped_buffers_are_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool(dir.path(), 16);
    for i in 0..4 {
        drop(pool.extend(REL, ForkNumber::Main).unwrap());
        stamp(&pool, i, 9);
    }
    pool.drop_relation_buffers(REL, ForkNumber::Main, 2);
    assert_eq!(pool.flush_all().unwrap(), 2, "only blocks 0 and 1 were still dirty in the pool");
}

/// `n` blocks stamped with their number and written out, then a fresh pool of
/// `nbuffers` frames over them (nothing cached).
fn written_blocks(dir: &std::path::Path, n: u32, nbuffers: usize) -> BufferPool {
    let writer = pool(dir, 16);
    for i in 0..n {
        drop(writer.extend(REL, ForkNumber::Main).unwrap());
        stamp(&writer, i, (i % 251) as u8);
    }
    writer.flush_all().unwrap();
    BufferPool::new(Arc::new(Smgr::new(dir)), nbuffers)
}

#[test]
fn bulk_reads_recycle_their_ring_and_leave_the_cache_alone() {
    let dir = tempfile::tempdir().unwrap();
    let pool = written_blocks(dir.path(), 256, 64);
    for _ in 0..5 {
        for i in 0..8 {
            value_of(&pool, i);
        }
    }
    let mut ring = BufferAccessStrategy::bulk_read(pool.nbuffers());
    for _ in 0..2 {
        for i in 0..256u32 {
            let tag = BufferTag::new(REL, ForkNumber::Main, i);
            let buf = pool.read_buffer_strategy(tag, &mut ring).unwrap();
            assert_eq!(buf.read().item(1).unwrap()[0], (i % 251) as u8);
        }
    }
    // Two passes over four times the pool went through a ring of 16 frames:
    // the often-used pages are all still cached.
    let reads = pool.stats().reads;
    for i in 0..8 {
        value_of(&pool, i);
    }
    assert_eq!(pool.stats().reads, reads, "the hot pages were not evicted");
}

#[test]
fn bulk_reads_do_not_reuse_frames_that_need_a_wal_flush() {
    let dir = tempfile::tempdir().unwrap();
    let wal_dir = dir.path().join("pg_wal");
    std::fs::create_dir_all(&wal_dir).unwrap();
    let wal = Arc::new(
        Wal::open(&wal_dir, FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions::default()).unwrap(),
    );
    let pool = written_blocks(dir.path(), 100, 256);
    pool.set_wal(wal.clone());
    let mut ring = BufferAccessStrategy::bulk_read(pool.nbuffers());
    let mut last = Lsn::INVALID;
    for i in 0..100 {
        let buf = pool.read_buffer_strategy(BufferTag::new(REL, ForkNumber::Main, i), &mut ring);
        let buf = buf.unwrap();
        let mut page = buf.write();
        page.mark_dirty();
        last = wal
            .insert(&RecordBuilder::new(RmgrId::Heap, 0, Xid(5)).with_main_data(vec![1; 64]))
            .unwrap();
        page.set_lsn(last);
    }
    // The ring holds 32 frames; reusing them would have written dirty pages
    // and flushed WAL each time. The sweep supplied clean frames instead.
    assert_eq!(pool.stats().writes, 0);
    assert!(wal.flushed_lsn() < last, "no WAL flush for a read");
    assert_eq!(pool.flush_all().unwrap(), 100);
    assert!(wal.flushed_lsn() >= last);
}
