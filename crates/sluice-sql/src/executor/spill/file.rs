//! One temporary file of rows (PostgreSQL's `BufFile` over a `pgsql_tmp`
//! file of `fd.c`).
//!
//! A [`TempFile`] is a sequence of frames, each a row in
//! `sluice_types::rowcodec`'s form behind its length (`u32`, little-endian):
//!
//! ```text
//!   [len][row bytes][len][row bytes] ...
//! ```
//!
//! Writes collect in a buffer of one block and go to the file when it fills;
//! a read of bytes still in the buffer is answered from it, so rows can be
//! read back while more are being appended (a WITH query's readers follow
//! its producer that way). A [`RowReader`] reads frames from any offset
//! through a block-sized buffer of its own, so each reader of a file costs
//! one block of memory and one `pread` per block, and checks for interrupts
//! before each row.
//!
//! Invariants: bytes before `flushed` are in the file, the rest in
//! `pending`; every byte written was first reserved against
//! `temp_file_limit`, and dropping the file removes it and gives its bytes
//! back.

use super::{TempSpace, TEMP_PREFIX};
use crate::error::{Result, SqlError};
use sluice_types::rowcodec::{decode_row, encode_row};
use sluice_types::Datum;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The unit of buffering, as PostgreSQL's `BLCKSZ`.
pub const BLOCK: usize = 8192;

/// The `N` of the next `pgsql_tmpPID.N` (PostgreSQL's `tempFileCounter`;
/// one server process serves every session here, so it is process-wide).
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

/// A temporary file, removed when dropped.
pub struct TempFile {
    space: Rc<TempSpace>,
    path: PathBuf,
    file: File,
    /// Bytes written but not yet in the file (they follow `flushed`).
    pending: Vec<u8>,
    /// Bytes in the file.
    flushed: u64,
}

impl TempFile {
    /// create -- a new, empty file in `space`'s directory (made on first use,
    /// as PostgreSQL makes `pgsql_tmp`).
    pub fn create(space: &Rc<TempSpace>) -> Result<TempFile> {
        let dir = space.dir();
        std::fs::create_dir_all(dir).map_err(|e| {
            io_error(format!("could not create directory \"{}\"", dir.display()), &e)
        })?;
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{TEMP_PREFIX}{}.{n}", std::process::id()));
        let file =
            File::options().read(true).write(true).create_new(true).open(&path).map_err(|e| {
                io_error(format!("could not create temporary file \"{}\"", path.display()), &e)
            })?;
        Ok(TempFile { space: space.clone(), path, file, pending: Vec::new(), flushed: 0 })
    }

    /// The space the file counts against.
    pub fn space(&self) -> &Rc<TempSpace> {
        &self.space
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.flushed + self.pending.len() as u64
    }

    /// write_row -- appends `row` as one frame.
    pub fn write_row(&mut self, row: &[Datum]) -> Result<()> {
        let start = self.pending.len();
        self.pending.extend([0; 4]);
        encode_row(row, &mut self.pending);
        let len = self.pending.len() - start - 4;
        let reserved = u32::try_from(len)
            .map_err(|_| SqlError::new("54000", "row is too big for a temporary file"))
            .and_then(|len32| {
                self.space.reserve(len as u64 + 4)?;
                Ok(len32)
            });
        match reserved {
            Ok(len32) => self.pending[start..start + 4].copy_from_slice(&len32.to_le_bytes()),
            Err(e) => {
                self.pending.truncate(start);
                return Err(e);
            }
        }
        if self.pending.len() >= BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    /// flush -- moves the buffered bytes into the file.
    fn flush(&mut self) -> Result<()> {
        self.file.write_all_at(&self.pending, self.flushed).map_err(|e| {
            io_error(format!("could not write to file \"{}\"", self.path.display()), &e)
        })?;
        self.flushed += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// read_at -- fills `out` with the bytes written at `offset`, from the
    /// file and the buffer as they lie.
    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        if offset + out.len() as u64 > self.len() {
            return Err(SqlError::internal("read past the end of a temporary file"));
        }
        let on_disk = self.flushed.saturating_sub(offset).min(out.len() as u64) as usize;
        if on_disk > 0 {
            self.file.read_exact_at(&mut out[..on_disk], offset).map_err(|e| {
                io_error(format!("could not read file \"{}\"", self.path.display()), &e)
            })?;
        }
        if on_disk < out.len() {
            let from = (offset + on_disk as u64 - self.flushed) as usize;
            let rest = out.len() - on_disk;
            out[on_disk..].copy_from_slice(&self.pending[from..from + rest]);
        }
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        // Nothing to report an error to here; a file that could not be
        // removed is removed at the next server start.
        let _ = std::fs::remove_file(&self.path);
        self.space.release(self.len());
    }
}

/// An I/O error as PostgreSQL reports it: 53100 when the disk is full,
/// else 58030.
fn io_error(what: String, e: &std::io::Error) -> SqlError {
    let code = if e.raw_os_error() == Some(28) { "53100" } else { "58030" };
    SqlError::new(code, format!("{what}: {e}"))
}

/// A position in a [`TempFile`] and a block of its bytes read ahead.
#[derive(Default)]
pub struct RowReader {
    /// Where the next frame starts.
    offset: u64,
    /// Where the reader's rows end (`None`: at the end of the file).
    end: Option<u64>,
    /// File bytes from `buf_start` on.
    buf: Vec<u8>,
    buf_start: u64,
}

impl RowReader {
    /// A reader at the file's first row.
    pub fn new() -> RowReader {
        RowReader::default()
    }

    /// A reader of the rows written between offsets `start` and `end` (one
    /// sorted run of several in a file).
    pub fn region(start: u64, end: u64) -> RowReader {
        RowReader { offset: start, end: Some(end), ..RowReader::default() }
    }

    /// next -- the row at the reader's position, moving past it; `None` at
    /// the end of what was written so far.
    pub fn next(&mut self, file: &TempFile) -> Result<Option<Vec<Datum>>> {
        file.space.check_interrupts()?;
        let Some(len) = self.frame_len(file)? else { return Ok(None) };
        let row = decode_row(self.bytes(file, self.offset + 4, len)?)?;
        self.offset += 4 + len as u64;
        Ok(Some(row))
    }

    /// skip -- moves past the row at the reader's position without decoding
    /// it; false at the end.
    pub fn skip(&mut self, file: &TempFile) -> Result<bool> {
        file.space.check_interrupts()?;
        let Some(len) = self.frame_len(file)? else { return Ok(false) };
        self.offset += 4 + len as u64;
        Ok(true)
    }

    /// The length of the frame at the position, `None` at the end.
    fn frame_len(&mut self, file: &TempFile) -> Result<Option<usize>> {
        if self.offset >= self.end.unwrap_or(file.len()) {
            return Ok(None);
        }
        let header = self.bytes(file, self.offset, 4)?;
        Ok(Some(u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize))
    }

    /// The `n` bytes at `offset`, read into the buffer (a block or more
    /// from `offset`) unless it already holds them.
    fn bytes(&mut self, file: &TempFile, offset: u64, n: usize) -> Result<&[u8]> {
        let held =
            offset >= self.buf_start && offset + n as u64 <= self.buf_start + self.buf.len() as u64;
        if !held {
            let left = file.len().saturating_sub(offset);
            if left < n as u64 {
                return Err(SqlError::internal("truncated frame in a temporary file"));
            }
            let want = (n.max(BLOCK) as u64).min(left) as usize;
            self.buf.resize(want, 0);
            file.read_at(offset, &mut self.buf)?;
            self.buf_start = offset;
        }
        let at = (offset - self.buf_start) as usize;
        Ok(&self.buf[at..at + n])
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{files, space};
    use super::*;

    fn row(i: i64) -> Vec<Datum> {
        vec![Datum::Int8(i), Datum::Text(format!("row {i}")), Datum::Null]
    }

    #[test]
    fn rows_read_back_across_blocks_and_while_appending() {
        let dir = tempfile::tempdir().expect("tempdir");
        let space = space(dir.path(), 64, None, None);
        let mut file = TempFile::create(&space).expect("create");
        let mut reader = RowReader::new();
        for i in 0..5000 {
            file.write_row(&row(i)).expect("write");
            // Every tenth row is read at once: from the buffer or the disk.
            if i % 10 == 9 {
                for j in i - 9..=i {
                    let got = reader.next(&file).expect("read").expect("row");
                    assert_eq!(got, row(j));
                }
            }
        }
        assert!(reader.next(&file).expect("read").is_none());
        let mut again = RowReader::new();
        assert!(again.skip(&file).expect("skip"));
        assert_eq!(again.next(&file).expect("read"), Some(row(1)));
        assert_eq!(files(dir.path()), 1);
        assert_eq!(space.used.get(), file.len());
        drop(file);
        assert_eq!(files(dir.path()), 0, "dropping removes the file");
        assert_eq!(space.used.get(), 0);
    }

    #[test]
    fn names_follow_postgres() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = TempFile::create(&space(dir.path(), 64, None, None)).expect("create");
        let name = file.path.file_name().expect("name").to_string_lossy().into_owned();
        let prefix = format!("pgsql_tmp{}.", std::process::id());
        assert!(name.starts_with(&prefix), "{name}");
        assert!(name[prefix.len()..].parse::<u64>().is_ok(), "{name}");
    }

    #[test]
    fn temp_file_limit_fails_with_53400() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut file = TempFile::create(&space(dir.path(), 64, Some(1), None)).expect("create");
        let err = (0..1000).try_for_each(|i| file.write_row(&row(i))).expect_err("over the limit");
        assert_eq!(err.code, "53400");
        assert_eq!(err.message, "temporary file size exceeds temp_file_limit (1kB)");
        assert!(file.len() <= 1024);
    }
}
