//! The access layer's error type: everything below it, plus the few errors the
//! heap itself raises.

use std::fmt;

/// An access method failure.
#[derive(Debug)]
pub enum AccessError {
    /// Pages, files or the buffer pool failed.
    Storage(sluice_storage::StorageError),
    /// The transaction layer failed.
    Txn(sluice_txn::TxnError),
    /// Writing or reading WAL failed.
    Wal(sluice_wal::WalError),
    /// A tuple was malformed or too big.
    Tuple(crate::common::TupleError),
    /// A page or record had impossible contents.
    Corrupt(String),
    /// REPEATABLE READ found its row changed by a transaction it cannot see.
    SerializationFailure,
    /// A wait for another transaction was interrupted (cancel, timeout).
    Interrupted,
    /// A heavyweight lock (or a wait for another transaction) failed:
    /// deadlock, `lock_timeout`, `NOWAIT`.
    Lock(sluice_txn::lmgr::LockError),
    /// An internal invariant failed ("can't happen"; SQLSTATE XX000).
    Internal(String),
    /// A unique index already holds a live entry with the same key; the caller
    /// names the index and the key in the message.
    UniqueViolation,
    /// Building a unique index found two live rows with this key (stored
    /// values; the caller renders them).
    DuplicateKey(Vec<Option<Vec<u8>>>),
    /// An index entry is larger than a third of a page (the B-tree's limit).
    IndexRowTooBig {
        /// The entry's MAXALIGNed size.
        size: usize,
        /// The largest entry the B-tree accepts.
        max: usize,
    },
}

/// Result alias for the access layer.
pub type Result<T> = std::result::Result<T, AccessError>;

impl AccessError {
    /// The SQLSTATE PostgreSQL reports for this failure.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            AccessError::Storage(e) => e.sqlstate(),
            AccessError::Txn(e) => e.sqlstate(),
            AccessError::Wal(_) => "58030",
            AccessError::Tuple(e) => e.sqlstate(),
            AccessError::Corrupt(_) => "XX001",
            AccessError::SerializationFailure => "40001",
            AccessError::Interrupted => "57014",
            AccessError::Lock(e) => e.sqlstate(),
            AccessError::Internal(_) => "XX000",
            AccessError::UniqueViolation | AccessError::DuplicateKey(_) => "23505",
            AccessError::IndexRowTooBig { .. } => "54000",
        }
    }
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::Storage(e) => write!(f, "{e}"),
            AccessError::Txn(e) => write!(f, "{e}"),
            AccessError::Wal(e) => write!(f, "{e}"),
            AccessError::Tuple(e) => write!(f, "{e}"),
            AccessError::Corrupt(msg) => write!(f, "{msg}"),
            AccessError::SerializationFailure => {
                write!(f, "could not serialize access due to concurrent update")
            }
            AccessError::Interrupted => write!(f, "canceling statement due to user request"),
            AccessError::Lock(e) => write!(f, "{e}"),
            AccessError::Internal(msg) => write!(f, "{msg}"),
            AccessError::UniqueViolation => {
                write!(f, "duplicate key value violates unique constraint")
            }
            AccessError::DuplicateKey(_) => write!(f, "could not create unique index"),
            AccessError::IndexRowTooBig { size, max } => {
                write!(f, "index row size {size} exceeds btree version 4 maximum {max}")
            }
        }
    }
}

impl std::error::Error for AccessError {}

impl From<sluice_storage::StorageError> for AccessError {
    fn from(e: sluice_storage::StorageError) -> AccessError {
        AccessError::Storage(e)
    }
}

impl From<sluice_txn::TxnError> for AccessError {
    fn from(e: sluice_txn::TxnError) -> AccessError {
        AccessError::Txn(e)
    }
}

impl From<sluice_wal::WalError> for AccessError {
    fn from(e: sluice_wal::WalError) -> AccessError {
        AccessError::Wal(e)
    }
}

impl From<crate::common::TupleError> for AccessError {
    fn from(e: crate::common::TupleError) -> AccessError {
        AccessError::Tuple(e)
    }
}
