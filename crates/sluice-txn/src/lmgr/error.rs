//! Why a lock request failed, with PostgreSQL's SQLSTATEs and messages.

use super::LockTag;
use std::fmt;

/// A lock request that was not granted. The request is gone from the queue
/// when this is returned; locks already held stay held until the caller
/// releases them (normally by ending the transaction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockError {
    /// Waiting closed a cycle of waits; this request was cancelled to break it
    /// (SQLSTATE 40P01).
    Deadlock {
        /// PostgreSQL's DETAIL: one line per process in the cycle, e.g.
        /// `Process 1234 waits for ShareLock on transaction 567; blocked by process 1235.`
        detail: String,
    },
    /// `lock_timeout` passed before the lock was granted (55P03).
    Timeout,
    /// The request would have had to wait and `nowait` was set (55P03). The tag
    /// lets the caller name the object: `could not obtain lock on relation "t"`.
    NotAvailable(LockTag),
    /// The wait's `interrupted` callback said stop (cancel, statement timeout;
    /// 57014 unless the caller knows better).
    Interrupted,
}

impl LockError {
    /// The SQLSTATE PostgreSQL reports for this failure.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            LockError::Deadlock { .. } => "40P01",
            LockError::Timeout | LockError::NotAvailable(_) => "55P03",
            LockError::Interrupted => "57014",
        }
    }

    /// The DETAIL line(s), if PostgreSQL sends any.
    pub fn detail(&self) -> Option<&str> {
        match self {
            LockError::Deadlock { detail } => Some(detail),
            _ => None,
        }
    }

    /// The HINT, if PostgreSQL sends one.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            LockError::Deadlock { .. } => Some("See server log for query details."),
            _ => None,
        }
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Deadlock { .. } => f.write_str("deadlock detected"),
            LockError::Timeout => f.write_str("canceling statement due to lock timeout"),
            LockError::NotAvailable(tag) => write!(f, "could not obtain lock on {tag}"),
            LockError::Interrupted => f.write_str("canceling statement due to user request"),
        }
    }
}

impl std::error::Error for LockError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_postgresqls_sqlstates_and_messages() {
        let deadlock = LockError::Deadlock { detail: "Process 1 waits ...".into() };
        assert_eq!(
            (deadlock.sqlstate(), deadlock.to_string().as_str()),
            ("40P01", "deadlock detected")
        );
        assert_eq!(deadlock.detail(), Some("Process 1 waits ..."));
        assert_eq!(deadlock.hint(), Some("See server log for query details."));
        let timeout = LockError::Timeout;
        assert_eq!(
            (timeout.sqlstate(), timeout.to_string().as_str()),
            ("55P03", "canceling statement due to lock timeout")
        );
        let busy = LockError::NotAvailable(LockTag::Relation { database: 5, relation: 16384 });
        assert_eq!(busy.sqlstate(), "55P03");
        assert_eq!(busy.to_string(), "could not obtain lock on relation 16384 of database 5");
        assert_eq!(LockError::Interrupted.sqlstate(), "57014");
        assert_eq!(busy.detail(), None);
    }
}
