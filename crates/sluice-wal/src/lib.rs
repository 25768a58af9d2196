//! The write-ahead log: record format, insertion, group-commit flushing, segment
//! files, the reader used by recovery, and the control file.
//!
//! # What the WAL is for
//!
//! Data pages are changed in the buffer pool and written back lazily, in any order,
//! whenever it suits the buffer manager. Before any page change, the backend appends a
//! *record* describing it to the write-ahead log. After a crash, replaying the log from
//! the last checkpoint re-does every change whose page never reached disk, so a
//! committed transaction survives as long as its commit record was flushed. One
//! sequential fsync per commit (or per group of commits) replaces random page writes.
//!
//! # The LSN model
//!
//! A log sequence number ([`Lsn`](sluice_common::Lsn)) is a byte offset in one endless logical stream. The
//! stream starts at [`FIRST_LSN`] (16 MB, the start of segment 1; LSN 0 means "invalid")
//! and is stored in 16 MB segment files in `pg_wal/` named as PostgreSQL names them
//! ([`segment`]). Records are laid end to end at 8-byte aligned positions with no page
//! headers, and may span segment boundaries. Each record knows the start of the one
//! before it (the prev-link), which recovery uses to tell real records from stale ones.
//!
//! ```text
//!  FIRST_LSN                      segment boundary
//!  |hdr|blocks|main|pad|hdr|blocks..|..main|pad|hdr|...|0000000000000
//!  ^ record A          ^ record B (prev = A)   ^ C       ^ end of WAL
//! ```
//!
//! [`Wal::insert`] returns a record's *end* LSN (the start of the next record); that is
//! the value stamped on changed pages (`pd_lsn`) and passed to [`Wal::flush`].
//!
//! # The record format
//!
//! A 32-byte header (`total_len`, CRC-32C, prev-link, xid, rmgr, info, block count,
//! main data length), then one entry per block reference (relation, fork, block, an
//! optional full-page image with its hole cut out, and block data), then main data.
//! [`record`] documents every byte.
//!
//! # The rules that make it crash-safe
//!
//! * **WAL before data.** The buffer manager must not write a page to disk until the
//!   WAL is flushed up to the page's LSN (`wal.flush(page_lsn)` before the write).
//!   Otherwise a crash could leave a change on disk whose record is lost, which redo can
//!   neither finish nor undo.
//! * **Full-page images.** The first change to a page after a checkpoint's redo pointer
//!   logs the whole page, so a page torn by a crash mid-write is restored from the log
//!   ([`xlog`] explains the rule and its locking).
//! * **A commit is durable when `flush` returns.** `flush` uses *group commit*: one
//!   fdatasync covers every record inserted before it started, so concurrent committers
//!   share the cost ([`WalStats::fsyncs`] counts them). With `synchronous_commit = off`
//!   the committer skips `flush` and the background writer
//!   ([`Wal::start_background_writer`]) flushes every few milliseconds instead.
//! * **The end of the WAL is the first invalid record.** [`WalReader`] stops at a zero
//!   length, a CRC or prev-link mismatch, or a missing or short segment; [`Wal::open`]
//!   then zeroes everything after that point before appending, so stale bytes from
//!   before the crash can never be mistaken for new records.
//! * **The control file** ([`ControlFile`]) says where the last checkpoint is; it is
//!   replaced atomically (write, fsync, rename, fsync directory).
//!
//! # Modules
//!
//! * [`record`] — builder types, encoding, decoding, CRC.
//! * [`segment`] — segment file names and file handling.
//! * [`xlog`] — [`Wal`]: insertion, group-commit flushing, the background writer.
//! * [`reader`] — [`WalReader`], used by crash recovery.
//! * [`control`] — `global/pg_control`.
//! * [`error`] — [`WalError`].
//!
//! Not implemented (yet): WAL compression, timelines other than 1, segment recycling
//! (old segments are deleted, new ones created), archiving.

pub mod control;
pub mod error;
pub mod reader;
pub mod record;
pub mod segment;
pub mod xlog;

pub use control::{ControlFile, DbState, CONTROL_FILE_SIZE};
pub use error::{Result, WalError};
pub use reader::{read_record_at, WalReader};
pub use record::{
    decode_record, page_lsn, BlockRef, DecodedBlock, DecodedRecord, RecordBuilder,
    BLOCK_FORCE_IMAGE, BLOCK_WILL_INIT, MAX_BLOCKS_PER_RECORD, MAX_RECORD_LEN, RECORD_HEADER_SIZE,
};
pub use xlog::{Wal, WalOptions, WalStats, WalWriterHandle, FIRST_LSN};
