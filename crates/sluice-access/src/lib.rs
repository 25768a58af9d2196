//! Access methods: how rows are laid out in pages, found again, changed, and
//! recovered after a crash — plus the [`Engine`] that brings one data directory
//! to life.
//!
//! * [`catcache`] — visible catalog tuples shared by all sessions, reused while
//!   no catalog-changing commit separates two snapshots.
//! * [`common`] — the tuple format shared by access methods (`access/common`).
//! * [`heap`] — the heap access method (`access/heap`): insert, update, delete,
//!   scans, MVCC visibility, hint bits, WAL records and redo.
//! * [`nbtree`] — the B-tree access method (`access/nbtree`): Lehman–Yao
//!   search, inserts with unique checks, splits, bottom-up builds, scans,
//!   WAL records and redo.
//! * [`engine`] — startup (bootstrap or recovery), checkpoints, the
//!   checkpointer and WAL writer threads, OID allocation, relation creation.
//! * [`database`] — database directories: CREATE DATABASE's WAL-logged copy,
//!   DROP DATABASE's removal, and their redo.
//! * [`pgstat`] — cumulative statistics (`pg_stat_*_tables`): sessions'
//!   pending counts, the transaction-end rules, the shared table and its
//!   file across clean shutdowns.
//! * [`sequence`] — the one-page relations behind `nextval`: counter, logging
//!   ahead, WAL records and redo.
//! * `recovery` — replaying WAL after a crash.
//!
//! The path of a row from INSERT to disk: `heap::heapam::heap_insert` picks a page
//! (`heap::hio`), adds the tuple under the page's exclusive lock, logs an
//! `XLOG_HEAP_INSERT` record and stamps the page LSN; the commit record is
//! flushed at COMMIT (group commit); the page itself reaches its relation file
//! when it is evicted from the buffer pool or at the next checkpoint — always
//! after the WAL that describes it.

pub mod catcache;
pub mod common;
pub mod database;
pub mod engine;
mod error;
pub mod heap;
pub mod nbtree;
pub mod pgstat;
mod recovery;
pub mod sequence;
pub mod xlog_records;

pub use engine::{CheckpointStats, Engine, EngineConfig};
pub use error::{AccessError, Result};
