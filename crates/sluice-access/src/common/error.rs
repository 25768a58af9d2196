//! The tuple format's error type.
//!
//! Two things can go wrong with a tuple's bytes. Either they are *corrupt*: a
//! header, a length word or a null bitmap points outside the tuple, which can only
//! mean a damaged page or a bug, and is reported as PostgreSQL reports
//! `data_corrupted` (SQLSTATE XX001). Or a correctly formed row is simply *too big*
//! to fit on a page, which is the user's doing and carries PostgreSQL's exact text
//! and SQLSTATE 54000 (`program_limit_exceeded`).
//!
//! Misuse by the caller (a value of the wrong width for its column, more values
//! than columns) is not an error here but a panic: it is a bug in sluice, not in
//! the data, and no user input can cause it.

use std::fmt;

/// A failure to read or store a heap tuple.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TupleError {
    /// The tuple's bytes are inconsistent; the message says what was found where.
    Corrupt(String),
    /// The row, MAXALIGNed, does not fit on an empty heap page.
    TooBig {
        /// The row's MAXALIGNed size in bytes.
        size: usize,
        /// The largest size a heap page can hold ([`super::MAX_HEAP_TUPLE_SIZE`]).
        max: usize,
    },
}

/// Result alias for the tuple format.
pub type Result<T> = std::result::Result<T, TupleError>;

impl TupleError {
    /// The SQLSTATE PostgreSQL reports for this kind of failure.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            TupleError::Corrupt(_) => "XX001",    // data_corrupted
            TupleError::TooBig { .. } => "54000", // program_limit_exceeded
        }
    }
}

impl fmt::Display for TupleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TupleError::Corrupt(msg) => write!(f, "corrupt heap tuple: {msg}"),
            TupleError::TooBig { size, max } => {
                write!(f, "row is too big: size {size}, maximum size {max}")
            }
        }
    }
}

impl std::error::Error for TupleError {}

/// Shorthand for building a [`TupleError::Corrupt`] from a format string.
macro_rules! corrupt {
    ($($arg:tt)*) => {
        $crate::common::error::TupleError::Corrupt(format!($($arg)*))
    };
}
pub(crate) use corrupt;
