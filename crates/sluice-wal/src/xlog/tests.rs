//! Tests of insertion, flushing, reopening after a crash, and the background writer.

use super::*;
use crate::reader::WalReader;
use crate::record::{BlockRef, DecodedRecord, BLOCK_FORCE_IMAGE, BLOCK_WILL_INIT};
use sluice_common::{ForkNumber, RelFileLocator, RmgrId, Xid, BLCKSZ};
use std::time::Instant;

fn open(dir: &Path, end: Lsn, prev: Lsn, redo: Lsn) -> Wal {
    Wal::open(dir, end, prev, redo, WalOptions::default()).expect("open WAL")
}

fn fresh(dir: &Path) -> Wal {
    open(dir, FIRST_LSN, Lsn::INVALID, FIRST_LSN)
}

/// A record whose main data is `len` bytes derived from `tag`, so content can be checked.
fn data_record(tag: u64, len: usize) -> RecordBuilder<'static> {
    let data = (0..len).map(|i| (tag as usize * 31 + i) as u8).collect();
    RecordBuilder::new(RmgrId::Heap, 0, Xid(tag)).with_main_data(data)
}

fn read_all(dir: &Path) -> (Vec<DecodedRecord>, WalReader) {
    let mut reader = WalReader::new(dir, FIRST_LSN);
    let mut recs = Vec::new();
    while let Some(rec) = reader.next_record().expect("read WAL") {
        recs.push(rec);
    }
    (recs, reader)
}

fn rel() -> RelFileLocator {
    RelFileLocator { spc_oid: 1663, db_oid: 1, rel_number: 2000 }
}

fn stamp(page: &mut [u8; BLCKSZ], lsn: Lsn) {
    page[..8].copy_from_slice(&lsn.0.to_le_bytes());
}

#[test]
fn full_page_image_rule_follows_redo_pointer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wal = fresh(dir.path());
    let mut page = Box::new([7u8; BLCKSZ]);
    stamp(&mut page, Lsn::INVALID);
    let insert = |page: &[u8; BLCKSZ], flags: u8| {
        let rec = RecordBuilder::new(RmgrId::Heap, 0, Xid(5)).with_block(
            BlockRef::new(0, rel(), ForkNumber::Main, 3)
                .with_page(page, (100, 200))
                .with_flags(flags),
        );
        let before = wal.stats().fpi_count;
        let (start, end) = wal.insert_at(&rec).expect("insert");
        (start, end, wal.stats().fpi_count - before == 1)
    };

    // Never-logged page (LSN 0 <= redo): image.
    let (first, end, image) = insert(&page, 0);
    assert!(image);
    stamp(&mut page, end);
    // Changed since the redo pointer: no image, unless forced; never with WILL_INIT.
    assert!(!insert(&page, 0).2);
    assert!(insert(&page, BLOCK_FORCE_IMAGE).2);
    assert!(!insert(&page, BLOCK_WILL_INIT).2);
    // A checkpoint moves the redo pointer past the page's LSN: image again, once.
    let redo = wal.begin_checkpoint();
    assert_eq!((redo, wal.redo_ptr()), (wal.insert_lsn(), wal.insert_lsn()));
    let (_, end, image) = insert(&page, 0);
    assert!(image);
    stamp(&mut page, end);
    assert!(!insert(&page, 0).2);
    wal.flush(wal.insert_lsn()).expect("flush");

    let (recs, _) = read_all(dir.path());
    let images: Vec<bool> = recs.iter().map(|r| r.blocks[0].image.is_some()).collect();
    assert_eq!(images, [true, false, true, false, true, false]);
    assert_eq!(recs[0].lsn, first);
    let img = recs[4].blocks[0].image.as_ref().expect("image");
    assert_eq!(&img[..8], &recs[0].end_lsn.0.to_le_bytes(), "image shows the stamped LSN");
    assert!(img[100..300].iter().all(|&b| b == 0) && img[300..].iter().all(|&b| b == 7));
}

#[test]
fn records_span_segment_boundaries_and_reopen_appends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wal = fresh(dir.path());
    let mut expected = Vec::new();
    for i in 0..20 {
        expected
            .push(wal.insert_at(&data_record(i, 3 * 1024 * 1024 + i as usize)).expect("insert"));
    }
    wal.flush(wal.insert_lsn()).expect("flush");
    let last_segment = segno_of(wal.insert_lsn());
    assert!(last_segment >= 4, "20 x 3 MB spans several segments");
    drop(wal);

    let (recs, reader) = read_all(dir.path());
    assert_eq!(recs.len(), 20);
    for (i, (rec, &(start, end))) in recs.iter().zip(&expected).enumerate() {
        assert_eq!((rec.lsn, rec.end_lsn, rec.xid), (start, end, Xid(i as u64)));
        assert_eq!(rec.main_data, data_record(i as u64, 3 * 1024 * 1024 + i).main_data);
    }
    assert_eq!(reader.end_of_log(), expected[19].1);
    assert_eq!(reader.last_record(), expected[19].0);

    let wal = open(dir.path(), reader.end_of_log(), reader.last_record(), FIRST_LSN);
    for i in 20..25 {
        expected.push(wal.insert_at(&data_record(i, 1000)).expect("insert"));
    }
    wal.flush(wal.insert_lsn()).expect("flush");
    let (recs, reader) = read_all(dir.path());
    let lsns: Vec<(Lsn, Lsn)> = recs.iter().map(|r| (r.lsn, r.end_lsn)).collect();
    assert_eq!(lsns, expected);
    assert_eq!(reader.end_of_log(), wal.insert_lsn());
}

#[test]
fn stale_records_after_an_earlier_end_are_never_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wal = fresh(dir.path());
    let old: Vec<_> =
        (0..10).map(|i| wal.insert_at(&data_record(i, 1000)).expect("insert")).collect();
    // Plus records reaching into segment 2, which must disappear too.
    for i in 10..16 {
        wal.insert_at(&data_record(i, 3 * 1024 * 1024)).expect("insert");
    }
    wal.flush(wal.insert_lsn()).expect("flush");
    drop(wal);

    // Recovery "ended" after record 4 (say record 5 was torn). Append a record of exactly
    // record 5's size: old record 6 would then start right at the new end with a prev-link
    // that matches. Only the zero-fill stops it from being read.
    let wal = open(dir.path(), old[4].1, old[4].0, FIRST_LSN);
    let (start, end) = wal.insert_at(&data_record(99, 1000)).expect("insert");
    assert_eq!((start, end), old[5]);
    wal.flush(end).expect("flush");
    assert_eq!(segment::list_segments(dir.path()).expect("list"), vec![1]);

    let (recs, reader) = read_all(dir.path());
    let xids: Vec<u64> = recs.iter().map(|r| r.xid.0).collect();
    assert_eq!(xids, [0, 1, 2, 3, 4, 99]);
    assert_eq!(reader.end_of_log(), end);

    // A shorter record leaves the old bytes misaligned behind it; still nothing more.
    drop(wal);
    let wal = open(dir.path(), old[4].1, old[4].0, FIRST_LSN);
    let end = wal.insert(&data_record(98, 10)).expect("insert");
    wal.flush(end).expect("flush");
    let (recs, reader) = read_all(dir.path());
    assert_eq!(recs.iter().map(|r| r.xid.0).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 98]);
    assert_eq!(reader.end_of_log(), end);
}

#[test]
fn group_commit_shares_fsyncs() {
    const THREADS: u64 = 8;
    const PER_THREAD: u64 = 200;
    let dir = tempfile::tempdir().expect("tempdir");
    let wal = Arc::new(fresh(dir.path()));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                for i in 0..PER_THREAD {
                    let end = wal.insert(&data_record(t * 1000 + i, 60)).expect("insert");
                    wal.flush(end).expect("flush");
                    assert!(wal.flushed_lsn() >= end);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let stats = wal.stats();
    let flush_calls = THREADS * PER_THREAD;
    println!("group commit: {flush_calls} flush calls, {stats:?}");
    assert_eq!(stats.records, flush_calls);
    assert!(stats.fsyncs < flush_calls, "no fsync was shared: {stats:?}");

    let (recs, _) = read_all(dir.path());
    assert_eq!(recs.len() as u64, flush_calls);
    for t in 0..THREADS {
        let mine: Vec<u64> =
            recs.iter().map(|r| r.xid.0).filter(|x| x / 1000 == t).map(|x| x % 1000).collect();
        assert_eq!(mine, (0..PER_THREAD).collect::<Vec<_>>(), "thread {t} in order");
    }
}

#[test]
fn background_writer_flushes_without_explicit_flush() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wal = Arc::new(fresh(dir.path()));
    let writer = wal.start_background_writer(Duration::from_millis(10)).expect("start");
    let end = wal.insert(&data_record(1, 100)).expect("insert");
    let deadline = Instant::now() + Duration::from_secs(10);
    while wal.flushed_lsn() < end {
        assert!(Instant::now() < deadline, "background writer did not flush");
        std::thread::sleep(Duration::from_millis(5));
    }
    writer.stop().expect("stop");
    assert!(wal.stats().fsyncs >= 1);
    assert_eq!(read_all(dir.path()).0.len(), 1);

    // Dropping the handle stops the thread too, and it never keeps the Wal alive.
    let writer = wal.start_background_writer(Duration::from_millis(1)).expect("start");
    let weak = Arc::downgrade(&wal);
    drop(wal);
    assert!(weak.upgrade().is_none());
    drop(writer);
}

#[test]
fn full_wal_buffers_are_written_by_inserters_without_fsync() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wal =
        Wal::open(dir.path(), FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions { wal_buffers: 4096 })
            .expect("open");
    for i in 0..100 {
        wal.insert(&data_record(i, 1000)).expect("insert");
    }
    let stats = wal.stats();
    assert!(stats.writes >= 20, "{stats:?}");
    assert_eq!(stats.fsyncs, 0);
    assert!(wal.written_lsn() > Lsn(FIRST_LSN.0 + 90 * 1000));
    assert_eq!(wal.flushed_lsn(), FIRST_LSN);
    assert_eq!(wal.write_out().expect("write out"), wal.insert_lsn());
    assert_eq!(read_all(dir.path()).0.len(), 100, "written data is readable");
}

#[test]
fn remove_segments_before_deletes_only_whole_flushed_segments() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wal = fresh(dir.path());
    for i in 0..20 {
        wal.insert(&data_record(i, 3 * 1024 * 1024)).expect("insert");
    }
    wal.flush(Lsn(4 * WAL_SEGMENT_SIZE)).expect("flush");
    let all = segment::list_segments(dir.path()).expect("list");
    assert_eq!(all.first(), Some(&1));
    // Segment 3 holds `lsn`, so only 1 and 2 go.
    assert_eq!(wal.remove_segments_before(Lsn(3 * WAL_SEGMENT_SIZE + 100)).expect("remove"), 2);
    assert_eq!(segment::list_segments(dir.path()).expect("list")[0], 3);
    // Segments with unflushed WAL stay, whatever the caller asks.
    let flushed_seg = segno_of(wal.flushed_lsn());
    wal.remove_segments_before(Lsn(100 * WAL_SEGMENT_SIZE)).expect("remove");
    assert_eq!(segment::list_segments(dir.path()).expect("list")[0], flushed_seg);
    wal.flush(wal.insert_lsn()).expect("flush after removal");
}

#[test]
fn invalid_inputs_are_errors_not_panics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pg_wal = dir.path().join("pg_wal");
    let bad =
        Wal::open(&pg_wal, Lsn(FIRST_LSN.0 + 3), Lsn::INVALID, FIRST_LSN, WalOptions::default());
    assert!(matches!(bad, Err(WalError::Corrupt(_))));
    let wal = fresh(&pg_wal);
    let huge = RecordBuilder::new(RmgrId::Heap, 0, Xid(3)).with_main_data(vec![0; MAX_RECORD_LEN]);
    assert!(matches!(wal.insert(&huge), Err(WalError::InvalidRecord(_))));
    let end = wal.insert(&data_record(1, 10)).expect("still usable");
    wal.flush(end).expect("flush");
    assert_eq!(read_all(&pg_wal).0.len(), 1);
}
