//! Resource manager ids: which subsystem a WAL record belongs to, and so which
//! redo routine replays it (PostgreSQL's `rmgrlist.h`).

/// The subsystem that wrote a WAL record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RmgrId {
    /// Checkpoints, full-page images for hint bits, OID allocation.
    Xlog = 0,
    /// Transaction commit and abort.
    Xact = 1,
    /// Relation file creation and truncation.
    Smgr = 2,
    /// Database directories: CREATE DATABASE's copy and DROP DATABASE.
    Database = 4,
    /// Multixact creation (`pg_multixact`).
    MultiXact = 6,
    /// Heap tuple insert, update, delete, lock.
    Heap = 10,
    /// B-tree index changes.
    Btree = 11,
    /// Sequence pages (nextval, setval, ALTER SEQUENCE).
    Sequence = 15,
}

impl RmgrId {
    /// The resource manager with this id, if any.
    pub fn from_u8(n: u8) -> Option<RmgrId> {
        Some(match n {
            0 => RmgrId::Xlog,
            1 => RmgrId::Xact,
            2 => RmgrId::Smgr,
            4 => RmgrId::Database,
            6 => RmgrId::MultiXact,
            10 => RmgrId::Heap,
            11 => RmgrId::Btree,
            15 => RmgrId::Sequence,
            _ => return None,
        })
    }
}
