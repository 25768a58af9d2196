//! The storage manager: relation forks as files of 8 KB blocks (PostgreSQL's
//! `smgr.c` + `md.c`).
//!
//! A relation fork lives in `base/<database oid>/<relfilenode><fork suffix>` (or
//! `global/...` for shared relations), split into 1 GB segment files named
//! `<relfilenode>`, `<relfilenode>.1`, `<relfilenode>.2`, ... so no single file
//! grows past what every file system handles.
//!
//! I/O is positional (`pread`/`pwrite`), so many threads read and write one file at
//! once without a lock. Only extension and truncation change a fork's length, and
//! those take the fork's `extension` mutex (PostgreSQL's relation extension lock),
//! which also keeps the cached block count exact.
//!
//! Nothing here is durable until [`Smgr::sync_dirty`] runs: writes go to the OS page
//! cache, and the checkpointer fsyncs every fork written since the last checkpoint
//! before it lets WAL before its redo point go. Between checkpoints, WAL is what
//! makes changes durable.

mod md;

pub use md::{RelFork, Smgr};
