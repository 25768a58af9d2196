//! The storage layer's error type.
//!
//! Errors here are either I/O failures (the disk said no), corruption (a page or
//! file failed verification: SQLSTATE XX001, PostgreSQL's `data_corrupted`) or
//! resource exhaustion (every buffer pinned). Each maps to the SQLSTATE the SQL
//! layer reports, so nothing above needs to understand storage internals.

use std::fmt;

/// A storage layer failure.
#[derive(Debug)]
pub enum StorageError {
    /// An operating system I/O call failed; `context` says which file and what.
    Io { context: String, source: std::io::Error },
    /// A page or file failed verification (bad checksum, short file, bad header).
    Corrupt(String),
    /// Every buffer in the pool is pinned, so no page can be brought in.
    NoUnpinnedBuffers,
    /// Writing or flushing WAL failed.
    Wal(sluice_wal::WalError),
}

/// Result alias for the storage layer.
pub type Result<T> = std::result::Result<T, StorageError>;

impl StorageError {
    /// Wraps an I/O error with a description of what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> StorageError {
        StorageError::Io { context: context.into(), source }
    }

    /// The SQLSTATE PostgreSQL reports for this kind of failure.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            StorageError::Io { .. } | StorageError::Wal(_) => "58030", // io_error
            StorageError::Corrupt(_) => "XX001",                       // data_corrupted
            StorageError::NoUnpinnedBuffers => "53000",                // insufficient_resources
        }
    }
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::Io { context, source } => write!(f, "{context}: {source}"),
            StorageError::Corrupt(msg) => write!(f, "{msg}"),
            StorageError::NoUnpinnedBuffers => write!(f, "no unpinned buffers available"),
            StorageError::Wal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StorageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StorageError::Io { source, .. } => Some(source),
            StorageError::Wal(e) => Some(e),
            _ => None,
        }
    }
}

impl From<sluice_wal::WalError> for StorageError {
    fn from(e: sluice_wal::WalError) -> StorageError {
        StorageError::Wal(e)
    }
}
