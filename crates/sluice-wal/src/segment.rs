//! WAL segment files: naming, creating, opening, zero-filling and removing them.
//!
//! The logical WAL stream is cut into files of [`WAL_SEGMENT_SIZE`] (16 MB) bytes in
//! `pg_wal/`. Byte `lsn` of the stream lives in segment `segno = lsn / WAL_SEGMENT_SIZE`
//! at offset `lsn % WAL_SEGMENT_SIZE`. Files are named as PostgreSQL names them on
//! timeline 1 — 24 hex digits `TTTTTTTTXXXXXXXXYYYYYYYY` with `XXXXXXXX = segno / 256`
//! and `YYYYYYYY = segno % 256` (256 segments of 16 MB make one 4 GB "xlogid") — so the
//! first segment, holding LSN 0/1000000, is `000000010000000000000001`, and
//! `ls pg_wal` looks familiar to anyone who has administered PostgreSQL.
//!
//! # Durability rules kept here
//!
//! * A new segment is created at its full size (`set_len`, which leaves it sparse and
//!   reading as zeros) and the directory is fsynced right away, so that once data written
//!   into the file has been fdatasynced, the file's name survives a crash as well.
//! * A segment that exists but is shorter than 16 MB (a crash hit its creation) is
//!   extended on open; the reader treats the missing part as the end of WAL.
//! * Removing segments is followed by a directory fsync by the caller.
//!
//! Nothing here holds locks; [`crate::Wal`] serialises writers with its write lock and
//! the reader runs alone during recovery.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use sluice_common::{Lsn, WAL_SEGMENT_SIZE};

use crate::error::{Result, WalError};

/// The timeline every sluice segment is named with (no point-in-time recovery forks yet).
const TIMELINE: u64 = 1;
/// Segments per 4 GB "xlogid", the split between the middle and last 8 digits of a name.
const SEGMENTS_PER_XLOGID: u64 = 0x100;
/// Size of the zero buffer used for zero-filling.
const ZERO_CHUNK: usize = 1024 * 1024;

/// segno_of -- the segment holding byte `lsn` of the WAL stream.
pub fn segno_of(lsn: Lsn) -> u64 {
    lsn.0 / WAL_SEGMENT_SIZE
}

/// segment_start -- the LSN of the first byte of segment `segno`.
pub fn segment_start(segno: u64) -> Lsn {
    Lsn(segno * WAL_SEGMENT_SIZE)
}

/// segment_offset -- where byte `lsn` lies within its segment file.
pub fn segment_offset(lsn: Lsn) -> u64 {
    lsn.0 % WAL_SEGMENT_SIZE
}

/// segment_file_name -- PostgreSQL-style file name of segment `segno` on timeline 1.
pub fn segment_file_name(segno: u64) -> String {
    format!(
        "{:08X}{:08X}{:08X}",
        TIMELINE,
        segno / SEGMENTS_PER_XLOGID,
        segno % SEGMENTS_PER_XLOGID
    )
}

/// parse_segment_file_name -- the segment number a file name stands for, if it is one of ours.
///
/// Anything else in `pg_wal/` (temporary files, other timelines, `archive_status/`)
/// gives `None` and is left alone.
pub fn parse_segment_file_name(name: &str) -> Option<u64> {
    let is_upper_hex = |c: char| c.is_ascii_digit() || ('A'..='F').contains(&c);
    if name.len() != 24 || !name.chars().all(is_upper_hex) {
        return None;
    }
    let part = |i: usize| u64::from_str_radix(&name[i * 8..i * 8 + 8], 16).ok();
    let (tli, hi, lo) = (part(0)?, part(1)?, part(2)?);
    if tli != TIMELINE || lo >= SEGMENTS_PER_XLOGID {
        return None;
    }
    Some(hi * SEGMENTS_PER_XLOGID + lo)
}

/// segment_path -- the path of segment `segno` in `dir`.
pub fn segment_path(dir: &Path, segno: u64) -> PathBuf {
    dir.join(segment_file_name(segno))
}

/// open_for_read -- open segment `segno` read-only; `None` if it does not exist.
pub(crate) fn open_for_read(dir: &Path, segno: u64) -> Result<Option<File>> {
    let path = segment_path(dir, segno);
    match File::open(&path) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(WalError::io(format!("open WAL segment {}", path.display()), e)),
    }
}

/// open_for_write -- open segment `segno` for writing, creating it at full size if absent.
///
/// Returns the file and whether it was created by this call (a created file already
/// reads as zeros and needs no zero-filling). A short file is extended to full size.
pub(crate) fn open_for_write(dir: &Path, segno: u64) -> Result<(File, bool)> {
    let path = segment_path(dir, segno);
    let ctx = |what: &str| format!("{what} WAL segment {}", path.display());
    let created = match OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
        Ok(f) => Some(f),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => None,
        Err(e) => return Err(WalError::io(ctx("create"), e)),
    };
    let (file, is_new) = match created {
        Some(f) => (f, true),
        None => {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .map_err(|e| WalError::io(ctx("open"), e))?;
            (f, false)
        }
    };
    let len = file.metadata().map_err(|e| WalError::io(ctx("stat"), e))?.len();
    if len < WAL_SEGMENT_SIZE {
        file.set_len(WAL_SEGMENT_SIZE).map_err(|e| WalError::io(ctx("extend"), e))?;
    }
    if is_new {
        fsync_dir(dir)?;
    }
    Ok((file, is_new))
}

/// zero_fill_from -- overwrite segment bytes [offset, WAL_SEGMENT_SIZE) with zeros and fsync.
///
/// Used when appending resumes after recovery: whatever lies after the end of valid WAL
/// in that segment is from before the crash and must never be mistaken for records
/// that follow the new ones.
pub(crate) fn zero_fill_from(file: &File, segno: u64, offset: u64) -> Result<()> {
    let zeros = vec![0u8; ZERO_CHUNK];
    let mut pos = offset;
    while pos < WAL_SEGMENT_SIZE {
        let n = (WAL_SEGMENT_SIZE - pos).min(ZERO_CHUNK as u64) as usize;
        file.write_all_at(&zeros[..n], pos).map_err(|e| {
            WalError::io(format!("zero-fill WAL segment {}", segment_file_name(segno)), e)
        })?;
        pos += n as u64;
    }
    file.sync_data()
        .map_err(|e| WalError::io(format!("fsync WAL segment {}", segment_file_name(segno)), e))
}

/// read_full_at -- read into `buf` from `offset` until it is full or the file ends.
///
/// Returns how many bytes were read; fewer than `buf.len()` means end of file.
pub(crate) fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// list_segments -- the segment numbers present in `dir`, ascending.
pub(crate) fn list_segments(dir: &Path) -> Result<Vec<u64>> {
    let ctx = || format!("read WAL directory {}", dir.display());
    let mut segs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| WalError::io(ctx(), e))? {
        let entry = entry.map_err(|e| WalError::io(ctx(), e))?;
        if let Some(segno) = entry.file_name().to_str().and_then(parse_segment_file_name) {
            segs.push(segno);
        }
    }
    segs.sort_unstable();
    Ok(segs)
}

/// remove_segment -- delete segment `segno` (the caller fsyncs the directory afterwards).
pub(crate) fn remove_segment(dir: &Path, segno: u64) -> Result<()> {
    let path = segment_path(dir, segno);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(WalError::io(format!("remove WAL segment {}", path.display()), e)),
    }
}

/// sync_segment -- fdatasync an existing segment file (used at startup; see `Wal::open`).
pub(crate) fn sync_segment(dir: &Path, segno: u64) -> Result<()> {
    let Some(file) = open_for_read(dir, segno)? else { return Ok(()) };
    file.sync_data()
        .map_err(|e| WalError::io(format!("fsync WAL segment {}", segment_file_name(segno)), e))
}

/// fsync_dir -- make file creations, renames and removals in `dir` durable.
pub(crate) fn fsync_dir(dir: &Path) -> Result<()> {
    let ctx = || format!("fsync directory {}", dir.display());
    let d = File::open(dir).map_err(|e| WalError::io(ctx(), e))?;
    d.sync_all().map_err(|e| WalError::io(ctx(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_postgresql() {
        assert_eq!(segment_file_name(1), "000000010000000000000001");
        assert_eq!(segment_file_name(0x1FF), "0000000100000001000000FF");
        assert_eq!(segno_of(Lsn(WAL_SEGMENT_SIZE)), 1);
        for segno in [0, 1, 255, 256, 0x12345] {
            assert_eq!(parse_segment_file_name(&segment_file_name(segno)), Some(segno));
        }
        assert_eq!(parse_segment_file_name("000000020000000000000001"), None, "other timeline");
        assert_eq!(parse_segment_file_name("00000001000000000000000a"), None, "lower case");
        assert_eq!(parse_segment_file_name("000000010000000000000100"), None, "low part >= 256");
        assert_eq!(parse_segment_file_name("archive_status"), None);
    }

    #[test]
    fn created_segments_are_full_size_and_zero() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (f, created) = open_for_write(dir.path(), 3).expect("create");
        assert!(created);
        assert_eq!(f.metadata().expect("stat").len(), WAL_SEGMENT_SIZE);
        f.write_all_at(b"abc", 10).expect("write");
        let (f, created) = open_for_write(dir.path(), 3).expect("reopen");
        assert!(!created);
        zero_fill_from(&f, 3, 11).expect("zero fill");
        let mut buf = [0xFFu8; 4];
        assert_eq!(read_full_at(&f, &mut buf, 10).expect("read"), 4);
        assert_eq!(buf, [b'a', 0, 0, 0]);
        assert_eq!(list_segments(dir.path()).expect("list"), vec![3]);
    }
}
