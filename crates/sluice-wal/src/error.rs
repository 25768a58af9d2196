//! Errors of the WAL layer.
//!
//! There are three kinds, and callers treat them differently:
//!
//! * [`WalError::Io`] — the operating system refused a read, write, fsync, create or
//!   rename. For writes and fsyncs this is fatal for the running server: once a WAL
//!   write or fsync has failed, the kernel may already have dropped the dirty pages, so
//!   the only safe continuation is PostgreSQL's: crash and recover from what is on disk.
//!   [`crate::Wal`] enforces that by refusing all further work after such a failure.
//! * [`WalError::Corrupt`] — bytes on disk that should be valid are not (a control file
//!   with a bad CRC, a checkpoint record that does not decode). Note that the *end* of
//!   the WAL is not corruption: [`crate::WalReader`] reports it as `Ok(None)`.
//! * [`WalError::InvalidRecord`] — the caller built a record that cannot be logged
//!   (too large, too many blocks, a hole outside the page). That is a bug in the caller,
//!   reported as an error rather than a panic so one bad statement cannot kill the server.

use std::fmt;

/// Everything that can go wrong in the WAL layer.
#[derive(Debug)]
pub enum WalError {
    /// An operating-system I/O call failed.
    Io {
        /// What we were doing, with the file involved (`"fsync WAL segment ..."`).
        context: String,
        /// The error the operating system returned.
        source: std::io::Error,
    },
    /// On-disk data that must be valid is not (bad CRC, impossible field values).
    Corrupt(String),
    /// A record handed to [`crate::Wal::insert`] violates the format's limits.
    InvalidRecord(String),
}

/// Result alias for the WAL layer.
pub type Result<T> = std::result::Result<T, WalError>;

impl WalError {
    /// io -- wrap an I/O error with a description of what was being done.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> WalError {
        WalError::Io { context: context.into(), source }
    }
}

impl fmt::Display for WalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalError::Io { context, source } => write!(f, "could not {context}: {source}"),
            WalError::Corrupt(msg) => write!(f, "corrupt WAL data: {msg}"),
            WalError::InvalidRecord(msg) => write!(f, "invalid WAL record: {msg}"),
        }
    }
}

impl std::error::Error for WalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WalError::Io { source, .. } => Some(source),
            WalError::Corrupt(_) | WalError::InvalidRecord(_) => None,
        }
    }
}
