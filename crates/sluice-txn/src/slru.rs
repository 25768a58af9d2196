//! A simple least-recently-used page cache over a directory of segment files
//! (PostgreSQL's `slru.c`), used by the commit log and the multixact offsets and members.
//!
//! Pages are 8 KB and numbered from 0; 32 pages make one segment file named by its
//! segment number in 12 hex digits (PostgreSQL uses 4, but its page numbers are
//! 32-bit; ours come from 64-bit transaction ids). A page that was never written
//! reads as zeros, which is why the commit log needs no WAL record to extend it:
//! "all zero" means "in progress", the right state for new transactions.
//!
//! At most `max_pages` pages are cached. Evicting a dirty page writes it, and
//! before any write WAL is flushed to its current end: a page can hold the commit
//! of an asynchronous transaction whose commit record is not on disk yet, and the
//! page must not get there first (PostgreSQL tracks a group LSN per page for this;
//! flushing everything is simpler, and writes are rare: evictions and checkpoints).
//!
//! Locking: one mutex around the cache. Critical sections copy at most one page.

use crate::error::{Result, TxnError};
use parking_lot::Mutex;
use sluice_common::BLCKSZ;
use sluice_wal::Wal;
use std::collections::HashMap;
use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Pages per segment file (PostgreSQL's SLRU_PAGES_PER_SEGMENT).
const PAGES_PER_SEGMENT: u64 = 32;

/// Counters reported by `pg_stat_slru`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlruStats {
    /// Pages created as zeros because nothing was on disk yet.
    pub blks_zeroed: u64,
    /// Lookups satisfied from the cache.
    pub blks_hit: u64,
    /// Pages read from disk.
    pub blks_read: u64,
    /// Pages written to disk.
    pub blks_written: u64,
    /// Whole-cache flushes (checkpoints).
    pub flushes: u64,
    /// Truncations (segments removed below a cut-off).
    pub truncates: u64,
    /// When the counters started from zero (the cache was opened), in
    /// microseconds since the Unix epoch.
    pub since_micros: u64,
}

/// One cached page.
struct CachedPage {
    data: Box<[u8; BLCKSZ]>,
    dirty: bool,
    last_used: u64,
}

/// A cache of pages over segment files in one directory.
pub struct Slru {
    dir: PathBuf,
    max_pages: usize,
    pages: Mutex<(HashMap<u64, CachedPage>, u64)>,
    wal: OnceLock<Arc<Wal>>,
    zeroed: AtomicU64,
    hits: AtomicU64,
    reads: AtomicU64,
    written: AtomicU64,
    flushes: AtomicU64,
    truncates: AtomicU64,
    since_micros: u64,
}

impl Slru {
    /// A cache of up to `max_pages` pages over the files in `dir` (created if missing).
    pub fn open(dir: PathBuf, max_pages: usize) -> Result<Slru> {
        std::fs::create_dir_all(&dir).map_err(|e| TxnError::Io {
            context: format!("could not create directory \"{}\"", dir.display()),
            source: e,
        })?;
        Ok(Slru {
            dir,
            max_pages: max_pages.max(2),
            pages: Mutex::new((HashMap::new(), 0)),
            wal: OnceLock::new(),
            zeroed: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            written: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            truncates: AtomicU64::new(0),
            since_micros: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as u64),
        })
    }

    /// Makes page writes wait for WAL (once recovery has finished and WAL is open).
    pub fn set_wal(&self, wal: Arc<Wal>) {
        let _ = self.wal.set(wal);
    }

    /// Counters since start.
    pub fn stats(&self) -> SlruStats {
        SlruStats {
            blks_zeroed: self.zeroed.load(Ordering::Relaxed),
            blks_hit: self.hits.load(Ordering::Relaxed),
            blks_read: self.reads.load(Ordering::Relaxed),
            blks_written: self.written.load(Ordering::Relaxed),
            flushes: self.flushes.load(Ordering::Relaxed),
            truncates: self.truncates.load(Ordering::Relaxed),
            since_micros: self.since_micros,
        }
    }

    /// Runs `f` on page `pageno`, reading it in if needed.
    pub fn with_page<R>(&self, pageno: u64, f: impl FnOnce(&[u8; BLCKSZ]) -> R) -> Result<R> {
        let mut guard = self.pages.lock();
        let page = self.cached(&mut guard, pageno)?;
        Ok(f(&page.data))
    }

    /// Runs `f` on page `pageno` to change it; the page becomes dirty.
    pub fn with_page_mut<R>(
        &self,
        pageno: u64,
        f: impl FnOnce(&mut [u8; BLCKSZ]) -> R,
    ) -> Result<R> {
        let mut guard = self.pages.lock();
        let page = self.cached(&mut guard, pageno)?;
        page.dirty = true;
        Ok(f(&mut page.data))
    }

    fn cached<'g>(
        &self,
        guard: &'g mut (HashMap<u64, CachedPage>, u64),
        pageno: u64,
    ) -> Result<&'g mut CachedPage> {
        guard.1 += 1;
        let tick = guard.1;
        if guard.0.contains_key(&pageno) {
            self.hits.fetch_add(1, Ordering::Relaxed);
        } else {
            if guard.0.len() >= self.max_pages {
                self.evict_one(&mut guard.0)?;
            }
            let data = self.read_page(pageno)?;
            guard.0.insert(pageno, CachedPage { data, dirty: false, last_used: tick });
        }
        let page = guard.0.get_mut(&pageno).expect("just inserted");
        page.last_used = tick;
        Ok(page)
    }

    fn evict_one(&self, pages: &mut HashMap<u64, CachedPage>) -> Result<()> {
        let Some((&victim, _)) = pages.iter().min_by_key(|(_, p)| p.last_used) else {
            return Ok(());
        };
        if pages[&victim].dirty {
            self.write_page(victim, &pages[&victim].data)?;
        }
        pages.remove(&victim);
        Ok(())
    }

    fn segment_path(&self, pageno: u64) -> PathBuf {
        self.dir.join(format!("{:012X}", pageno / PAGES_PER_SEGMENT))
    }

    fn offset(pageno: u64) -> u64 {
        (pageno % PAGES_PER_SEGMENT) * BLCKSZ as u64
    }

    fn read_page(&self, pageno: u64) -> Result<Box<[u8; BLCKSZ]>> {
        let mut data = Box::new([0u8; BLCKSZ]);
        let path = self.segment_path(pageno);
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.zeroed.fetch_add(1, Ordering::Relaxed);
                return Ok(data);
            }
            Err(e) => return Err(io_error("could not open file", &path, e)),
        };
        match file.read_exact_at(&mut data[..], Slru::offset(pageno)) {
            Ok(()) => {
                self.reads.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                // Never written: a new page. (A partial page cannot exist: pages
                // are written whole at page-aligned offsets.)
                data.fill(0);
                self.zeroed.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => return Err(io_error("could not read file", &path, e)),
        }
        Ok(data)
    }

    fn write_page(&self, pageno: u64, data: &[u8; BLCKSZ]) -> Result<()> {
        if let Some(wal) = self.wal.get() {
            wal.flush(wal.insert_lsn())?;
        }
        let path = self.segment_path(pageno);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| io_error("could not open file", &path, e))?;
        file.write_all_at(data, Slru::offset(pageno))
            .map_err(|e| io_error("could not write to file", &path, e))?;
        file.sync_data().map_err(|e| io_error("could not fsync file", &path, e))?;
        self.written.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// flush -- writes every dirty page (checkpoint work).
    pub fn flush(&self) -> Result<()> {
        let mut guard = self.pages.lock();
        for (&pageno, page) in guard.0.iter_mut() {
            if page.dirty {
                self.write_page(pageno, &page.data)?;
                page.dirty = false;
            }
        }
        self.flushes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Slru {
    /// truncate_below -- forgets the pages of every segment wholly below
    /// page `pageno` and removes their files (PostgreSQL's
    /// SimpleLruTruncate). The caller guarantees nobody reads them again.
    pub fn truncate_below(&self, pageno: u64) -> Result<()> {
        let cutoff = pageno / PAGES_PER_SEGMENT;
        let mut guard = self.pages.lock();
        guard.0.retain(|&p, _| p / PAGES_PER_SEGMENT >= cutoff);
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) => return Err(io_error("could not open directory", &self.dir, e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let segment = name.to_str().and_then(|n| u64::from_str_radix(n, 16).ok());
            if segment.is_some_and(|s| s < cutoff) {
                let path = entry.path();
                std::fs::remove_file(&path)
                    .map_err(|e| io_error("could not remove file", &path, e))?;
            }
        }
        self.truncates.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn io_error(what: &str, path: &std::path::Path, source: std::io::Error) -> TxnError {
    TxnError::Io { context: format!("{what} \"{}\"", path.display()), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_survive_eviction_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let slru = Slru::open(dir.path().join("pg_xact"), 2).unwrap();
        for pageno in [0u64, 1, 40, 41] {
            slru.with_page_mut(pageno, |p| p[7] = pageno as u8 + 1).unwrap();
        }
        assert!(slru.stats().blks_written >= 2, "evictions wrote dirty pages");
        slru.flush().unwrap();
        let again = Slru::open(dir.path().join("pg_xact"), 8).unwrap();
        for pageno in [0u64, 1, 40, 41] {
            assert_eq!(again.with_page(pageno, |p| p[7]).unwrap(), pageno as u8 + 1);
        }
        assert_eq!(again.with_page(5, |p| p[7]).unwrap(), 0, "never written");
        assert!(dir.path().join("pg_xact/000000000001").exists());
    }
}
