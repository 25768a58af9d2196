//! `Wal`: inserting records, writing and flushing them (group commit), and the
//! background WAL writer. PostgreSQL's `xlog.c` (`XLogInsertRecord`, `XLogWrite`,
//! `XLogFlush`) and `walwriter.c`, simplified.
//!
//! # Two positions, two locks
//!
//! ```text
//!   FIRST_LSN            flushed_lsn      written_lsn              insert_pos
//!   |---- durable ------------|-- in the OS --|--- in the buffer ---|
//!                                             ^ buf_start
//! ```
//!
//! * The **insert lock** (`insert`) protects the in-memory buffer of records that are
//!   not yet written, the insert position, the previous record's start (for the
//!   prev-link) and the redo pointer. Inserting a record is: take the lock, decide the
//!   full-page images, encode the record straight into the buffer, advance, release.
//!   It never does I/O, except that an inserter who finds the buffer larger than
//!   `wal_buffers` writes it out after releasing the lock (the buffer is bounded by
//!   back-pressure on inserters, as in PostgreSQL when `wal_buffers` is full).
//! * The **write lock** (`write`) serialises writing to segment files and fsyncing
//!   them; it also owns the open segment files. Whoever holds it swaps the *entire*
//!   pending buffer out from under the insert lock (a pointer swap, so inserters are
//!   blocked only for an instant), writes it at its LSN, and for a flush fdatasyncs every
//!   segment it touched. Lock order is always write → insert; an inserter drops the
//!   insert lock before taking the write lock.
//!
//! `flushed_lsn` and `written_lsn` are atomics, so "is my commit durable yet?" needs no
//! lock at all.
//!
//! # Group commit
//!
//! A committing backend calls [`Wal::flush`] with its commit record's end LSN. While
//! one backend holds the write lock and waits for the disk, others insert their commit
//! records and queue on the write lock. The next one to get it writes *everything*
//! inserted so far and syncs once, so when the rest get the lock they find their LSN
//! already flushed and return without an fsync. The busier the system, the more commits
//! share each fsync; [`WalStats::fsyncs`] shows it.
//!
//! # The full-page-image rule
//!
//! A crash can tear an 8 KB data page write, leaving a page that no record can be
//! replayed onto. So the first time a page is changed after a checkpoint's redo pointer,
//! the record carries an image of the whole page, and redo restores that image instead
//! of trusting the disk. "First time" is decided from the page's LSN (`pd_lsn`, the
//! end of the last record that changed it, see [`crate::record::page_lsn`]): an image is
//! needed iff `page_lsn <= redo_ptr`. The decision is made under the insert lock, where
//! `redo_ptr` cannot move ([`Wal::begin_checkpoint`] moves it under the same lock), so
//! a record can never miss an image because a checkpoint started concurrently. The
//! caller holds the page's exclusive content lock across `insert` and stamps the
//! returned LSN into the page before releasing it.
//!
//! # Failure is final
//!
//! If a write or fsync fails, the pending bytes have left the buffer and the kernel may
//! have thrown away the dirty pages it could not write, so retrying could "succeed"
//! while the WAL has a hole. Like PostgreSQL (which PANICs), the `Wal` then refuses all
//! further inserts and flushes; the server must restart and recover from disk.
//!
//! Dropping a `Wal` does not flush it: unflushed records are lost exactly as in a crash.
//! A clean shutdown flushes explicitly (with its shutdown checkpoint record).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;
use sluice_common::{maxalign, Lsn, WAL_SEGMENT_SIZE};

use crate::error::{Result, WalError};
use crate::record::{self, RecordBuilder, MAX_RECORD_LEN};
use crate::segment::{self, segment_offset, segno_of};

/// The first LSN of every sluice cluster: the start of segment 1. LSN 0 is
/// [`Lsn::INVALID`], and starting a segment later keeps the file names familiar.
pub const FIRST_LSN: Lsn = Lsn(WAL_SEGMENT_SIZE);

/// Tunables of the WAL.
#[derive(Clone, Debug)]
pub struct WalOptions {
    /// Bytes of inserted-but-unwritten WAL kept in memory before an inserter writes
    /// them out itself (PostgreSQL's `wal_buffers`).
    pub wal_buffers: usize,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions { wal_buffers: 16 * 1024 * 1024 }
    }
}

/// Counters since the `Wal` was opened, for tests, benchmarks and monitoring views.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    /// Records inserted.
    pub records: u64,
    /// WAL bytes inserted, alignment padding included.
    pub bytes: u64,
    /// Full-page images included in inserted records.
    pub fpi_count: u64,
    /// fdatasync calls on segment files (one per segment per flush).
    pub fsyncs: u64,
    /// pwrite calls on segment files.
    pub writes: u64,
}

/// The atomics behind [`WalStats`], bumped without any lock of their own.
#[derive(Default)]
struct Counters {
    /// See [`WalStats::records`].
    records: AtomicU64,
    /// See [`WalStats::bytes`].
    bytes: AtomicU64,
    /// See [`WalStats::fpi_count`].
    fpi_count: AtomicU64,
    /// See [`WalStats::fsyncs`].
    fsyncs: AtomicU64,
    /// See [`WalStats::writes`].
    writes: AtomicU64,
}

/// State protected by the insert lock.
struct InsertState {
    /// Where the next record will start; always `buf_start + buf.len()`.
    insert_pos: Lsn,
    /// Start of the last record inserted, the next record's prev-link.
    prev_record: Lsn,
    /// The current checkpoint's redo pointer; pages not changed since get an image.
    redo_ptr: Lsn,
    /// Encoded records (with padding) not yet handed to the writer.
    buf: Vec<u8>,
    /// The LSN of `buf[0]`.
    buf_start: Lsn,
}

/// A segment file the writer has open.
struct OpenSegment {
    /// Which segment.
    segno: u64,
    /// The file, kept open until synced so a writeback error is reported to us.
    file: File,
    /// Written to since its last fdatasync.
    dirty: bool,
}

/// State protected by the write lock.
struct WriteState {
    /// Everything before this LSN has been handed to the OS.
    written: Lsn,
    /// An empty buffer to swap in for the insert buffer, so the two allocations
    /// alternate instead of being reallocated on every write.
    spare: Vec<u8>,
    /// Open segment files: the one being appended to plus any not yet synced.
    segments: Vec<OpenSegment>,
}

/// The write-ahead log of one cluster. Send + Sync; share it through an `Arc`.
pub struct Wal {
    /// The `pg_wal` directory.
    dir: PathBuf,
    /// Copy of [`WalOptions::wal_buffers`].
    wal_buffers: usize,
    /// The insert lock: see the module docs.
    insert: Mutex<InsertState>,
    /// The write lock: see the module docs. Taken before `insert`, never after.
    write: Mutex<WriteState>,
    /// Mirror of `WriteState::written`, readable without the lock.
    written_lsn: AtomicU64,
    /// Everything before this LSN is on stable storage.
    flushed_lsn: AtomicU64,
    /// Set when a write or fsync failed; every later operation is refused.
    failed: AtomicBool,
    /// Statistics.
    counters: Counters,
}

impl Wal {
    /// open -- start appending to the WAL in `dir` at `end_of_log`.
    ///
    /// `end_of_log` and `prev_record` come from recovery ([`crate::WalReader::end_of_log`]
    /// and [`crate::WalReader::last_record`]); a fresh cluster passes [`FIRST_LSN`] and
    /// [`Lsn::INVALID`]. `redo_ptr` is the last checkpoint's redo pointer.
    ///
    /// Everything found after `end_of_log` is garbage from before a crash: the rest of
    /// its segment is overwritten with zeros and later segments are deleted, so that no
    /// stale record can ever follow the records appended from now on. Segments before it
    /// are fdatasynced, because after `kill -9` they may be only in the OS cache, and the
    /// buffer pool is about to treat everything before `end_of_log` as durable.
    pub fn open(
        dir: &Path,
        end_of_log: Lsn,
        prev_record: Lsn,
        redo_ptr: Lsn,
        options: WalOptions,
    ) -> Result<Wal> {
        if end_of_log < FIRST_LSN || !record::is_aligned(end_of_log) {
            return Err(WalError::Corrupt(format!("{end_of_log} is not a valid end of WAL")));
        }
        ensure_dir(dir)?;
        let end_seg = segno_of(end_of_log);
        let mut removed = false;
        for segno in segment::list_segments(dir)? {
            if segno > end_seg {
                segment::remove_segment(dir, segno)?;
                removed = true;
            } else if segno < end_seg {
                segment::sync_segment(dir, segno)?;
            }
        }
        let (file, created) = segment::open_for_write(dir, end_seg)?;
        if !created {
            segment::zero_fill_from(&file, end_seg, segment_offset(end_of_log))?;
        }
        if removed {
            segment::fsync_dir(dir)?;
        }
        Ok(Wal::new(dir, end_of_log, prev_record, redo_ptr, options, file))
    }

    /// new -- the in-memory state for a WAL whose files `open` has prepared.
    fn new(
        dir: &Path,
        end_of_log: Lsn,
        prev_record: Lsn,
        redo_ptr: Lsn,
        options: WalOptions,
        file: File,
    ) -> Wal {
        let insert = InsertState {
            insert_pos: end_of_log,
            prev_record,
            redo_ptr,
            buf: Vec::with_capacity(options.wal_buffers),
            buf_start: end_of_log,
        };
        let write = WriteState {
            written: end_of_log,
            spare: Vec::with_capacity(options.wal_buffers),
            segments: vec![OpenSegment { segno: segno_of(end_of_log), file, dirty: false }],
        };
        Wal {
            dir: dir.to_path_buf(),
            wal_buffers: options.wal_buffers,
            insert: Mutex::new(insert),
            write: Mutex::new(write),
            written_lsn: AtomicU64::new(end_of_log.0),
            flushed_lsn: AtomicU64::new(end_of_log.0),
            failed: AtomicBool::new(false),
            counters: Counters::default(),
        }
    }

    /// insert -- append a record; returns its END LSN (the start of the next record).
    ///
    /// The end LSN is what the caller stamps into the pages it changed and what a
    /// committer passes to [`Wal::flush`]. The caller must hold the exclusive content
    /// lock of every page in `rec.blocks` (see the full-page-image rule above). The record
    /// is in memory only; it is durable after a `flush` past the returned LSN.
    pub fn insert(&self, rec: &RecordBuilder<'_>) -> Result<Lsn> {
        self.insert_at(rec).map(|(_, end)| end)
    }

    /// insert_at -- like [`Wal::insert`], returning both the start and the end LSN.
    ///
    /// The start LSN names the record (checkpoint records are found by it). If the
    /// insert had to write out a full buffer and that write failed, the error is
    /// returned even though the record was buffered; the `Wal` is unusable from then on.
    pub fn insert_at(&self, rec: &RecordBuilder<'_>) -> Result<(Lsn, Lsn)> {
        self.check_usable()?;
        record::validate(rec)?;
        let (start, end, buffered) = self.append(rec)?;
        if buffered > self.wal_buffers {
            // The buffer is over budget: write it out ourselves (no fsync). Another
            // inserter may beat us to it; then there is nothing left to do.
            let mut ws = self.write.lock();
            self.write_pending(&mut ws, self.wal_buffers)?;
        }
        Ok((start, end))
    }

    /// append -- encode `rec` into the insert buffer under the insert lock.
    ///
    /// Returns (start, end, bytes now buffered).
    fn append(&self, rec: &RecordBuilder<'_>) -> Result<(Lsn, Lsn, usize)> {
        let mut guard = self.insert.lock();
        let ins = &mut *guard;
        let images = record::choose_images(rec, ins.redo_ptr);
        let total_len = record::encoded_len(rec, images);
        if total_len > MAX_RECORD_LEN {
            return Err(WalError::InvalidRecord(format!(
                "record of {total_len} bytes exceeds the maximum of {MAX_RECORD_LEN}"
            )));
        }
        let start = ins.insert_pos;
        record::encode_into(&mut ins.buf, rec, ins.prev_record, images);
        let padded = maxalign(total_len);
        ins.buf.resize(ins.buf.len() + padded - total_len, 0);
        let end = Lsn(start.0 + padded as u64);
        ins.prev_record = start;
        ins.insert_pos = end;
        debug_assert_eq!(ins.buf_start.0 + ins.buf.len() as u64, end.0);
        self.counters.records.fetch_add(1, Ordering::Relaxed);
        self.counters.bytes.fetch_add(padded as u64, Ordering::Relaxed);
        self.counters.fpi_count.fetch_add(u64::from(images.count()), Ordering::Relaxed);
        Ok((start, end, ins.buf.len()))
    }

    /// flush -- make the WAL durable at least up to `upto` (group commit).
    ///
    /// Returns at once if `upto` is already flushed; otherwise writes and fdatasyncs
    /// everything inserted so far, which usually covers other waiting committers too.
    /// Asking for more than has been inserted flushes everything there is.
    pub fn flush(&self, upto: Lsn) -> Result<()> {
        self.check_usable()?;
        if self.flushed_lsn.load(Ordering::Acquire) >= upto.0 {
            return Ok(());
        }
        let mut ws = self.write.lock();
        // Re-check: while we queued for the lock, someone else's fsync may have covered us.
        if self.flushed_lsn.load(Ordering::Acquire) >= upto.0 {
            return Ok(());
        }
        self.check_usable()?;
        self.write_pending(&mut ws, 0)?;
        self.sync_dirty(&mut ws)?;
        self.flushed_lsn.store(ws.written.0, Ordering::Release);
        Ok(())
    }

    /// write_out -- hand everything inserted so far to the OS, without fsync.
    ///
    /// Returns the new written position. Used by the background writer and before
    /// large operations that want the buffer empty.
    pub fn write_out(&self) -> Result<Lsn> {
        self.check_usable()?;
        let mut ws = self.write.lock();
        self.write_pending(&mut ws, 0)?;
        Ok(ws.written)
    }

    /// write_pending -- if more than `more_than` bytes are buffered, write them all.
    ///
    /// Caller holds the write lock (`ws`); this takes the insert lock only to swap
    /// buffers, then writes without it so inserters keep going.
    fn write_pending(&self, ws: &mut WriteState, more_than: usize) -> Result<()> {
        let mut chunk = std::mem::take(&mut ws.spare);
        chunk.clear();
        let start = {
            let mut ins = self.insert.lock();
            if ins.buf.len() <= more_than {
                ws.spare = chunk;
                return Ok(());
            }
            std::mem::swap(&mut ins.buf, &mut chunk);
            let start = ins.buf_start;
            ins.buf_start = ins.insert_pos;
            start
        };
        let result = self.write_bytes(ws, start, &chunk);
        if chunk.capacity() > 2 * self.wal_buffers {
            // One huge burst (many big records at once) should not pin its memory forever.
            chunk = Vec::with_capacity(self.wal_buffers);
        }
        ws.spare = chunk;
        result.map_err(|e| self.fail(e))
    }

    /// write_bytes -- write `bytes` at LSN `start` into the segment file(s) they belong to.
    ///
    /// Caller holds the write lock, and `start` is the current written position: WAL is
    /// written strictly in order, with no gaps.
    fn write_bytes(&self, ws: &mut WriteState, start: Lsn, bytes: &[u8]) -> Result<()> {
        debug_assert_eq!(start, ws.written);
        let (mut lsn, mut rest) = (start, bytes);
        while !rest.is_empty() {
            let (segno, offset) = (segno_of(lsn), segment_offset(lsn));
            let n = rest.len().min((WAL_SEGMENT_SIZE - offset) as usize);
            let seg = ws.segment(&self.dir, segno)?;
            seg.file.write_all_at(&rest[..n], offset).map_err(|e| {
                WalError::io(format!("write WAL segment {}", segment::segment_file_name(segno)), e)
            })?;
            seg.dirty = true;
            self.counters.writes.fetch_add(1, Ordering::Relaxed);
            lsn = Lsn(lsn.0 + n as u64);
            rest = &rest[n..];
        }
        ws.written = lsn;
        self.written_lsn.store(lsn.0, Ordering::Release);
        Ok(())
    }

    /// sync_dirty -- fdatasync every segment written since the last sync.
    ///
    /// Caller holds the write lock. Afterwards only the newest segment stays open.
    fn sync_dirty(&self, ws: &mut WriteState) -> Result<()> {
        for seg in ws.segments.iter_mut().filter(|s| s.dirty) {
            seg.file.sync_data().map_err(|e| {
                let name = segment::segment_file_name(seg.segno);
                self.fail(WalError::io(format!("fsync WAL segment {name}"), e))
            })?;
            seg.dirty = false;
            self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(newest) = ws.segments.iter().map(|s| s.segno).max() {
            ws.segments.retain(|s| s.segno == newest);
        }
        Ok(())
    }

    /// begin_checkpoint -- move the redo pointer to the current insert position.
    ///
    /// From now on the first change to every page carries a full-page image. Returns the
    /// new redo pointer, where recovery from this checkpoint will start replaying.
    pub fn begin_checkpoint(&self) -> Lsn {
        let mut ins = self.insert.lock();
        ins.redo_ptr = ins.insert_pos;
        ins.redo_ptr
    }

    /// remove_segments_before -- delete segment files lying entirely before `lsn`.
    ///
    /// Called after a checkpoint with its redo pointer: older WAL is never needed by
    /// recovery again. Segments holding unflushed WAL are never removed, whatever `lsn`
    /// says. Returns how many files were deleted.
    pub fn remove_segments_before(&self, lsn: Lsn) -> Result<usize> {
        let flushed = Lsn(self.flushed_lsn.load(Ordering::Acquire));
        let keep_from = segno_of(lsn).min(segno_of(flushed));
        let mut removed = 0;
        for segno in segment::list_segments(&self.dir)? {
            if segno < keep_from {
                segment::remove_segment(&self.dir, segno)?;
                removed += 1;
            }
        }
        if removed > 0 {
            segment::fsync_dir(&self.dir)?;
        }
        Ok(removed)
    }

    /// insert_lsn -- where the next record will start (takes the insert lock briefly).
    pub fn insert_lsn(&self) -> Lsn {
        self.insert.lock().insert_pos
    }

    /// prev_record -- start of the last record inserted.
    pub fn prev_record(&self) -> Lsn {
        self.insert.lock().prev_record
    }

    /// written_lsn -- everything before this has been handed to the OS. Lock-free.
    pub fn written_lsn(&self) -> Lsn {
        Lsn(self.written_lsn.load(Ordering::Acquire))
    }

    /// flushed_lsn -- everything before this is durable. Lock-free.
    pub fn flushed_lsn(&self) -> Lsn {
        Lsn(self.flushed_lsn.load(Ordering::Acquire))
    }

    /// redo_ptr -- the current checkpoint's redo pointer.
    pub fn redo_ptr(&self) -> Lsn {
        self.insert.lock().redo_ptr
    }

    /// dir -- the `pg_wal` directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// stats -- a snapshot of the counters.
    pub fn stats(&self) -> WalStats {
        let c = &self.counters;
        WalStats {
            records: c.records.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            fpi_count: c.fpi_count.load(Ordering::Relaxed),
            fsyncs: c.fsyncs.load(Ordering::Relaxed),
            writes: c.writes.load(Ordering::Relaxed),
        }
    }

    /// start_background_writer -- flush everything inserted every `delay` (the walwriter).
    ///
    /// This is what makes `synchronous_commit = off` lose at most a few `delay`s of
    /// commits in a crash. The thread holds only a weak reference, so it never keeps the
    /// `Wal` alive; it stops when the handle is stopped or dropped, or when a flush fails
    /// (the error is returned by [`WalWriterHandle::stop`]).
    pub fn start_background_writer(self: &Arc<Self>, delay: Duration) -> Result<WalWriterHandle> {
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let wal = Arc::downgrade(self);
        let thread = std::thread::Builder::new()
            .name("walwriter".into())
            .spawn(move || background_writer_loop(wal, stop_rx, delay))
            .map_err(|e| WalError::io("start the WAL writer thread", e))?;
        Ok(WalWriterHandle { stop_tx: Some(stop_tx), thread: Some(thread) })
    }

    /// check_usable -- refuse to work after a write or fsync failure (see module docs).
    fn check_usable(&self) -> Result<()> {
        if self.failed.load(Ordering::Acquire) {
            return Err(WalError::io(
                "use the WAL after an earlier write or fsync failure (restart to recover)",
                std::io::Error::other("WAL writing failed earlier"),
            ));
        }
        Ok(())
    }

    /// fail -- remember that writing failed, and pass the error on.
    fn fail(&self, e: WalError) -> WalError {
        self.failed.store(true, Ordering::Release);
        e
    }
}

impl WriteState {
    /// segment -- the open file of segment `segno`, opening (or creating) it if needed.
    fn segment(&mut self, dir: &Path, segno: u64) -> Result<&mut OpenSegment> {
        let idx = match self.segments.iter().position(|s| s.segno == segno) {
            Some(idx) => idx,
            None => {
                let (file, _created) = segment::open_for_write(dir, segno)?;
                self.segments.push(OpenSegment { segno, file, dirty: false });
                self.segments.len() - 1
            }
        };
        Ok(&mut self.segments[idx])
    }
}

/// background_writer_loop -- the walwriter thread's body.
fn background_writer_loop(wal: Weak<Wal>, stop: mpsc::Receiver<()>, delay: Duration) -> Result<()> {
    loop {
        match stop.recv_timeout(delay) {
            Err(RecvTimeoutError::Timeout) => {}
            // A message or a dropped handle both mean "stop".
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        let Some(wal) = wal.upgrade() else { return Ok(()) };
        wal.flush(wal.insert_lsn())?;
    }
}

/// Controls the background WAL writer thread; stops it when dropped.
pub struct WalWriterHandle {
    /// Dropping (or sending on) this tells the thread to stop.
    stop_tx: Option<mpsc::Sender<()>>,
    /// The thread, joined on stop.
    thread: Option<JoinHandle<Result<()>>>,
}

impl WalWriterHandle {
    /// stop -- stop the thread and wait for it; returns the error that ended it, if any.
    pub fn stop(mut self) -> Result<()> {
        self.shutdown()
    }

    /// shutdown -- signal the thread and join it.
    fn shutdown(&mut self) -> Result<()> {
        drop(self.stop_tx.take());
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(_panic)) => Err(WalError::io(
                "run the WAL writer thread",
                std::io::Error::other("the thread panicked"),
            )),
        }
    }
}

impl Drop for WalWriterHandle {
    fn drop(&mut self) {
        // Errors were already recorded by the Wal itself (it refuses further work).
        let _ = self.shutdown();
    }
}

/// ensure_dir -- create `dir` if missing, durably.
fn ensure_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| WalError::io(format!("create WAL directory {}", dir.display()), e))?;
    match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => segment::fsync_dir(parent),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
