//! `WalReader`: reading records back in order, for crash recovery.
//!
//! Recovery starts at the last checkpoint's redo pointer and calls
//! [`WalReader::next_record`] until it returns `Ok(None)`, replaying each record.
//! PostgreSQL's counterpart is `xlogreader.c` (`XLogReadRecord`).
//!
//! # Where the WAL ends
//!
//! Nothing on disk says "the log ends here": after a crash, the end is simply the first
//! position that does not hold a valid record. A record is valid if
//!
//! 1. its segment file(s) exist and hold all of its bytes (no short read),
//! 2. its `total_len` is at least a header and at most [`MAX_RECORD_LEN`] (zero, the
//!    value of never-written space, fails here),
//! 3. its `prev` link equals the start of the record read before it,
//! 4. its CRC matches, and
//! 5. it decodes consistently (lengths add up, known rmgr and fork).
//!
//! Any failure ends the WAL: the reader returns `Ok(None)`, remembers why
//! ([`WalReader::end_reason`]) and where ([`WalReader::end_of_log`]), and the server
//! resumes appending there with [`crate::Wal::open`]. Only genuine I/O errors (other
//! than a missing file) are `Err`: those mean "cannot tell", not "the end".
//!
//! Checks 3 and 4 are what make torn and stale data harmless: a record whose tail
//! never reached disk fails its CRC, and an intact record from before an earlier crash
//! (left in place because recovery then ended before it) fails the prev-link — and is
//! zeroed anyway by `Wal::open`, as a second line of defence.
//!
//! The reader never panics on garbage and never allocates more than
//! [`MAX_RECORD_LEN`] for one record. It is used by one thread and takes no locks.

use std::fs::File;
use std::path::{Path, PathBuf};

use sluice_common::{Lsn, WAL_SEGMENT_SIZE};

use crate::error::{Result, WalError};
use crate::record::{self, DecodedRecord, MAX_RECORD_LEN, RECORD_HEADER_SIZE};
use crate::segment::{self, segment_offset, segno_of};

/// Reads records sequentially from a `pg_wal` directory.
pub struct WalReader {
    /// The `pg_wal` directory.
    dir: PathBuf,
    /// Where the next record should start.
    next: Lsn,
    /// The `prev` link the next record must carry; `None` means "do not check" (the first
    /// record when the caller did not say what precedes it).
    expected_prev: Option<Lsn>,
    /// Start of the last valid record returned (or the prev given by the caller).
    last_record: Lsn,
    /// The segment file currently open, to avoid reopening it for every record.
    file: Option<(u64, File)>,
    /// Why reading stopped, once it has.
    end_reason: Option<String>,
}

impl WalReader {
    /// new -- read from `start` on, without checking the first record's prev-link.
    pub fn new(dir: &Path, start: Lsn) -> WalReader {
        WalReader {
            dir: dir.to_path_buf(),
            next: start,
            expected_prev: None,
            last_record: Lsn::INVALID,
            file: None,
            end_reason: None,
        }
    }

    /// with_prev -- read from `start` on; the first record must link back to `prev`.
    pub fn with_prev(dir: &Path, start: Lsn, prev: Lsn) -> WalReader {
        WalReader { expected_prev: Some(prev), last_record: prev, ..WalReader::new(dir, start) }
    }

    /// next_record -- the next valid record, or `None` at the end of valid WAL.
    ///
    /// After `None`, every further call returns `None` again.
    pub fn next_record(&mut self) -> Result<Option<DecodedRecord>> {
        if self.end_reason.is_some() {
            return Ok(None);
        }
        match self.try_read()? {
            Ok(rec) => {
                self.last_record = rec.lsn;
                self.expected_prev = Some(rec.lsn);
                self.next = rec.end_lsn;
                Ok(Some(rec))
            }
            Err(reason) => {
                self.end_reason = Some(reason);
                Ok(None)
            }
        }
    }

    /// end_of_log -- where the next record would start (after the end: where appending resumes).
    pub fn end_of_log(&self) -> Lsn {
        self.next
    }

    /// last_record -- start of the last valid record read, the prev-link for the next one.
    pub fn last_record(&self) -> Lsn {
        self.last_record
    }

    /// end_reason -- why reading stopped, for the server log; `None` while still reading.
    pub fn end_reason(&self) -> Option<&str> {
        self.end_reason.as_deref()
    }

    /// try_read -- read the record at `self.next`: Ok(Ok(rec)), Ok(Err(why it is the end)),
    /// or Err for a real I/O error.
    fn try_read(&mut self) -> Result<std::result::Result<DecodedRecord, String>> {
        let lsn = self.next;
        if lsn.0 < WAL_SEGMENT_SIZE || !record::is_aligned(lsn) {
            return Ok(Err(format!("invalid record position {lsn}")));
        }
        let mut header = [0u8; RECORD_HEADER_SIZE];
        if let Some(why) = self.read_at(lsn, &mut header)? {
            return Ok(Err(why));
        }
        let head = record::parse_header(&header);
        let total_len = head.total_len as usize;
        if !(RECORD_HEADER_SIZE..=MAX_RECORD_LEN).contains(&total_len) {
            return Ok(Err(format!("invalid record length at {lsn}: {total_len}")));
        }
        if let Some(expected) = self.expected_prev {
            if head.prev != expected {
                return Ok(Err(format!(
                    "record at {lsn} has incorrect prev-link {}, expected {expected}",
                    head.prev
                )));
            }
        }
        let mut bytes = vec![0u8; total_len];
        bytes[..RECORD_HEADER_SIZE].copy_from_slice(&header);
        let body_lsn = Lsn(lsn.0 + RECORD_HEADER_SIZE as u64);
        if let Some(why) = self.read_at(body_lsn, &mut bytes[RECORD_HEADER_SIZE..])? {
            return Ok(Err(why));
        }
        Ok(record::decode_record(lsn, &bytes).map_err(|e| e.to_string()))
    }

    /// read_at -- fill `buf` with WAL bytes from `lsn`, crossing segments as needed.
    ///
    /// Returns `Some(reason)` if a segment is missing or too short (the end of WAL).
    fn read_at(&mut self, lsn: Lsn, buf: &mut [u8]) -> Result<Option<String>> {
        let mut pos = lsn;
        let mut done = 0;
        while done < buf.len() {
            let (segno, offset) = (segno_of(pos), segment_offset(pos));
            let want = (buf.len() - done).min((WAL_SEGMENT_SIZE - offset) as usize);
            let Some(file) = self.segment(segno)? else {
                return Ok(Some(format!(
                    "WAL segment {} does not exist",
                    segment::segment_file_name(segno)
                )));
            };
            let got =
                segment::read_full_at(file, &mut buf[done..done + want], offset).map_err(|e| {
                    WalError::io(
                        format!("read WAL segment {}", segment::segment_file_name(segno)),
                        e,
                    )
                })?;
            if got < want {
                return Ok(Some(format!("short read of WAL at {pos}: {got} of {want} bytes")));
            }
            done += want;
            pos = Lsn(pos.0 + want as u64);
        }
        Ok(None)
    }

    /// segment -- the open file for `segno`, or None if it does not exist.
    fn segment(&mut self, segno: u64) -> Result<Option<&File>> {
        if self.file.as_ref().is_none_or(|(open, _)| *open != segno) {
            self.file = segment::open_for_read(&self.dir, segno)?.map(|f| (segno, f));
        }
        Ok(self.file.as_ref().map(|(_, f)| f))
    }
}

/// read_record_at -- read the single record starting at `lsn` (e.g. the checkpoint record).
///
/// Unlike [`WalReader::next_record`], a missing or invalid record here is an error:
/// the caller knows a record must be there.
pub fn read_record_at(dir: &Path, lsn: Lsn) -> Result<DecodedRecord> {
    let mut reader = WalReader::new(dir, lsn);
    match reader.next_record()? {
        Some(rec) => Ok(rec),
        None => Err(WalError::Corrupt(format!(
            "no valid record at {lsn}: {}",
            reader.end_reason().unwrap_or("unknown reason")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RecordBuilder;
    use crate::xlog::{Wal, WalOptions, FIRST_LSN};
    use sluice_common::{RmgrId, Xid};
    use std::os::unix::fs::FileExt;

    /// Write `n` records with main data `[i; len]` and return their (start, end) LSNs.
    fn write_records(dir: &Path, n: usize, len: usize) -> Vec<(Lsn, Lsn)> {
        let wal = Wal::open(dir, FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions::default())
            .expect("open");
        let lsns: Vec<_> = (0..n)
            .map(|i| {
                let rec = RecordBuilder::new(RmgrId::Heap, i as u8, Xid(i as u64 + 3))
                    .with_main_data(vec![i as u8; len]);
                wal.insert_at(&rec).expect("insert")
            })
            .collect();
        wal.flush(wal.insert_lsn()).expect("flush");
        lsns
    }

    fn read_all(reader: &mut WalReader) -> Vec<DecodedRecord> {
        std::iter::from_fn(|| reader.next_record().expect("read")).collect()
    }

    fn corrupt_byte_at(dir: &Path, lsn: Lsn) {
        let path = segment::segment_path(dir, segno_of(lsn));
        let f = std::fs::OpenOptions::new().read(true).write(true).open(path).expect("open");
        let mut b = [0u8; 1];
        f.read_exact_at(&mut b, segment_offset(lsn)).expect("read");
        f.write_all_at(&[b[0] ^ 0xFF], segment_offset(lsn)).expect("write");
    }

    #[test]
    fn reader_stops_before_corrupt_record_in_the_middle() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lsns = write_records(dir.path(), 10, 100);
        corrupt_byte_at(dir.path(), Lsn(lsns[6].0 .0 + 50));
        let mut r = WalReader::new(dir.path(), FIRST_LSN);
        let recs = read_all(&mut r);
        assert_eq!(recs.len(), 6);
        assert_eq!(r.end_of_log(), lsns[6].0);
        assert_eq!(r.last_record(), lsns[5].0);
        assert!(r.end_reason().expect("ended").contains("checksum"), "{:?}", r.end_reason());
        assert!(r.next_record().expect("again").is_none());
    }

    #[test]
    fn reader_stops_at_zeroes_and_at_missing_segment() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lsns = write_records(dir.path(), 3, 10);
        let mut r = WalReader::new(dir.path(), FIRST_LSN);
        assert_eq!(read_all(&mut r).len(), 3);
        assert_eq!(r.end_of_log(), lsns[2].1);
        assert!(r.end_reason().expect("ended").contains("invalid record length"));
        let mut r = WalReader::new(dir.path(), Lsn(5 * WAL_SEGMENT_SIZE));
        assert!(r.next_record().expect("read").is_none());
        assert!(r.end_reason().expect("ended").contains("does not exist"));
    }

    #[test]
    fn reader_stops_at_truncated_segment() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lsns = write_records(dir.path(), 5, 1000);
        let path = segment::segment_path(dir.path(), 1);
        let f = std::fs::OpenOptions::new().write(true).open(path).expect("open");
        f.set_len(segment_offset(lsns[3].0) + 500).expect("truncate");
        let mut r = WalReader::new(dir.path(), FIRST_LSN);
        assert_eq!(read_all(&mut r).len(), 3);
        assert!(r.end_reason().expect("ended").contains("short read"));
    }

    #[test]
    fn record_torn_across_a_missing_segment_ends_wal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lsns = write_records(dir.path(), 8, 3 * 1024 * 1024);
        let spanning = lsns.iter().position(|(s, e)| segno_of(*s) == 1 && segno_of(*e) == 2);
        let spanning = spanning.expect("a record crosses into segment 2");
        std::fs::remove_file(segment::segment_path(dir.path(), 2)).expect("remove");
        let mut r = WalReader::new(dir.path(), FIRST_LSN);
        assert_eq!(read_all(&mut r).len(), spanning);
        assert_eq!(r.end_of_log(), lsns[spanning].0);
        assert!(r.end_reason().expect("ended").contains("does not exist"));
    }

    #[test]
    fn prev_link_is_checked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lsns = write_records(dir.path(), 3, 10);
        let mut r = WalReader::with_prev(dir.path(), lsns[1].0, lsns[0].0);
        assert_eq!(read_all(&mut r).len(), 2);
        let mut r = WalReader::with_prev(dir.path(), lsns[1].0, Lsn(12345 * 8));
        assert!(r.next_record().expect("read").is_none());
        assert!(r.end_reason().expect("ended").contains("prev-link"));
        assert_eq!(r.end_of_log(), lsns[1].0);
    }

    #[test]
    fn read_record_at_fetches_one_record_or_fails() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lsns = write_records(dir.path(), 4, 20);
        let rec = read_record_at(dir.path(), lsns[2].0).expect("record");
        assert_eq!((rec.lsn, rec.end_lsn, rec.info), (lsns[2].0, lsns[2].1, 2));
        assert_eq!(rec.main_data, vec![2u8; 20]);
        assert!(matches!(read_record_at(dir.path(), lsns[3].1), Err(WalError::Corrupt(_))));
        assert!(read_record_at(dir.path(), Lsn(lsns[2].0 .0 + 8)).is_err());
    }

    #[test]
    fn random_garbage_segment_ends_wal_without_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let garbage: Vec<u8> = (0..1 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        std::fs::write(segment::segment_path(dir.path(), 1), &garbage).expect("write");
        for start in (0..64).map(|i| Lsn(FIRST_LSN.0 + i * 4096)) {
            let mut r = WalReader::new(dir.path(), start);
            assert!(r.next_record().expect("read").is_none());
        }
    }
}
