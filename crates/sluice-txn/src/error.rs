//! The transaction layer's error type.

use std::fmt;

/// A transaction layer failure.
#[derive(Debug)]
pub enum TxnError {
    /// Writing the commit log or WAL failed.
    Storage(sluice_storage::StorageError),
    /// Writing a commit or abort record failed.
    Wal(sluice_wal::WalError),
    /// The commit log on disk is unreadable.
    Io { context: String, source: std::io::Error },
    /// Every proc array slot is taken.
    TooManyClients,
    /// Transaction bookkeeping on disk contradicts itself (a multixact that
    /// does not exist, an unreadable WAL record).
    Corrupt(String),
}

/// Result alias for the transaction layer.
pub type Result<T> = std::result::Result<T, TxnError>;

impl TxnError {
    /// The SQLSTATE PostgreSQL reports for this kind of failure.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            TxnError::Storage(e) => e.sqlstate(),
            TxnError::Wal(_) | TxnError::Io { .. } => "58030",
            TxnError::TooManyClients => "53300",
            TxnError::Corrupt(_) => "XX001",
        }
    }
}

impl fmt::Display for TxnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnError::Storage(e) => write!(f, "{e}"),
            TxnError::Wal(e) => write!(f, "{e}"),
            TxnError::Io { context, source } => write!(f, "{context}: {source}"),
            TxnError::TooManyClients => write!(f, "sorry, too many clients already"),
            TxnError::Corrupt(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for TxnError {}

impl From<sluice_storage::StorageError> for TxnError {
    fn from(e: sluice_storage::StorageError) -> TxnError {
        TxnError::Storage(e)
    }
}

impl From<sluice_wal::WalError> for TxnError {
    fn from(e: sluice_wal::WalError) -> TxnError {
        TxnError::Wal(e)
    }
}
