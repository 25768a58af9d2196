//! The SQL layer's error: what a client receives in an ErrorResponse.
//!
//! Every error carries PostgreSQL's SQLSTATE and, where PostgreSQL has them, the
//! same message, DETAIL and HINT texts, plus the cursor position in the query
//! text (psql prints the `LINE 1: ...` excerpt from it). Errors from the layers
//! below convert into this type with their own SQLSTATEs, so nothing is ever
//! reported as a generic failure.

use std::fmt;

/// An error to report to the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlError {
    /// Five-character SQLSTATE.
    pub code: &'static str,
    /// The primary message.
    pub message: String,
    /// Facts about the failure (DETAIL).
    pub detail: Option<String>,
    /// The way out (HINT).
    pub hint: Option<String>,
    /// 1-based character position in the query text.
    pub position: Option<u32>,
    /// Where it happened (CONTEXT), innermost first, one line each
    /// (`COPY t, line 2, column a: "x"`).
    pub context: Option<String>,
}

/// Result alias for the SQL layer.
pub type Result<T> = std::result::Result<T, SqlError>;

impl SqlError {
    /// An error with `code` and `message`.
    pub fn new(code: &'static str, message: impl Into<String>) -> SqlError {
        SqlError {
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            context: None,
        }
    }

    /// Adds a DETAIL.
    pub fn with_detail(mut self, detail: impl Into<String>) -> SqlError {
        self.detail = Some(detail.into());
        self
    }

    /// Adds a HINT.
    pub fn with_hint(mut self, hint: impl Into<String>) -> SqlError {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a CONTEXT line below those the error already has (the
    /// innermost comes first, as in PostgreSQL).
    pub fn with_context(mut self, context: impl Into<String>) -> SqlError {
        let context = context.into();
        self.context = Some(match self.context.take() {
            Some(inner) => format!("{inner}\n{context}"),
            None => context,
        });
        self
    }

    /// Adds the cursor position, if none is set yet.
    pub fn at(mut self, position: Option<u32>) -> SqlError {
        if self.position.is_none() {
            self.position = position;
        }
        self
    }

    /// 42601 syntax_error.
    pub fn syntax(message: impl Into<String>) -> SqlError {
        SqlError::new("42601", message)
    }

    /// 0A000 feature_not_supported.
    pub fn unsupported(message: impl Into<String>) -> SqlError {
        SqlError::new("0A000", message)
    }

    /// XX000 internal_error: a bug, not a user mistake.
    pub fn internal(message: impl Into<String>) -> SqlError {
        SqlError::new("XX000", message)
    }

    /// Whether the error ends the session (PostgreSQL reports these as FATAL):
    /// termination by an administrator, a lost client, and the session and
    /// transaction timeouts.
    pub fn ends_session(&self) -> bool {
        matches!(self.code, "57P01" | "08006" | "25P03" | "25P04" | "57P05")
    }
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for SqlError {}

/// The 1-based error position of a parse node's 0-based `location` (-1,
/// unknown, gives none), for [`SqlError::at`].
pub fn position(location: i32) -> Option<u32> {
    u32::try_from(location).ok().map(|l| l + 1)
}

impl From<sluice_access::AccessError> for SqlError {
    fn from(e: sluice_access::AccessError) -> SqlError {
        SqlError::new(e.sqlstate(), e.to_string())
    }
}

impl From<sluice_access::common::TupleError> for SqlError {
    fn from(e: sluice_access::common::TupleError) -> SqlError {
        SqlError::new(e.sqlstate(), e.to_string())
    }
}

impl From<sluice_txn::TxnError> for SqlError {
    fn from(e: sluice_txn::TxnError) -> SqlError {
        SqlError::new(e.sqlstate(), e.to_string())
    }
}

impl From<sluice_storage::StorageError> for SqlError {
    fn from(e: sluice_storage::StorageError) -> SqlError {
        SqlError::new(e.sqlstate(), e.to_string())
    }
}

impl From<sluice_types::TypeError> for SqlError {
    fn from(e: sluice_types::TypeError) -> SqlError {
        SqlError {
            code: e.sqlstate(),
            message: e.message.clone(),
            detail: e.detail.clone(),
            hint: e.hint.clone(),
            position: None,
            context: e.context.clone(),
        }
    }
}

impl From<sluice_txn::lmgr::LockError> for SqlError {
    fn from(e: sluice_txn::lmgr::LockError) -> SqlError {
        let mut err = SqlError::new(e.sqlstate(), e.to_string());
        err.detail = e.detail().map(str::to_string);
        err.hint = e.hint().map(str::to_string);
        err
    }
}

impl From<sluice_guc::GucError> for SqlError {
    fn from(e: sluice_guc::GucError) -> SqlError {
        let mut err = SqlError::new(e.sqlstate(), e.to_string());
        err.detail = e.detail();
        err.hint = e.hint();
        err
    }
}
