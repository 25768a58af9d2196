//! Identifiers shared by every layer of sluice.
//!
//! These are the small value types that cross layer boundaries: a WAL position
//! ([`Lsn`]), a transaction id ([`Xid`]), the name of a relation's files on disk
//! ([`RelFileLocator`] plus [`ForkNumber`]) and a page number within them
//! ([`BlockNumber`]). They live in one leaf crate so that the WAL, the buffer pool,
//! the transaction manager and the access methods agree on them without depending
//! on each other. PostgreSQL keeps the same things in `src/include/access/xlogdefs.h`,
//! `storage/relfilelocator.h` and `storage/block.h`.
//!
//! Nothing here allocates or locks; everything is `Copy`.

mod ids;
mod rmgr;

pub use ids::*;
pub use rmgr::RmgrId;

/// Size of every page: heap, index, FSM, VM and the commit log (PostgreSQL's BLCKSZ).
pub const BLCKSZ: usize = 8192;

/// Blocks per 1 GB relation segment file (PostgreSQL's RELSEG_SIZE).
pub const RELSEG_SIZE: u32 = (1024 * 1024 * 1024 / BLCKSZ) as u32;

/// Size of one WAL segment file (PostgreSQL's default `wal_segment_size`).
pub const WAL_SEGMENT_SIZE: u64 = 16 * 1024 * 1024;

/// The largest alignment any on-page datum needs (PostgreSQL's MAXALIGN on 64-bit).
pub const MAXIMUM_ALIGNOF: usize = 8;

/// Backends are threads, so their pids are numbers the server hands out:
/// client sessions get pids from here up (the cancel registry's), backends
/// with no client (background workers, the checkpointer) below it, so the
/// two never meet.
pub const FIRST_CLIENT_PID: i32 = 10_000;

/// The smallest pid of a backend with no client.
pub const FIRST_WORKER_PID: i32 = 1_000;

/// Round `len` up to the next multiple of [`MAXIMUM_ALIGNOF`].
pub const fn maxalign(len: usize) -> usize {
    (len + MAXIMUM_ALIGNOF - 1) & !(MAXIMUM_ALIGNOF - 1)
}
