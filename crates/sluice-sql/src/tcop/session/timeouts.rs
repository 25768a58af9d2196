//! Timeouts of a client session.
//!
//! `statement_timeout` and `transaction_timeout` are deadlines the interrupt
//! check compares with the clock, so every place that already checks for cancel
//! (scans, lock and row waits, `pg_sleep`) also times out: a statement past its
//! deadline fails with 57014, a transaction past its own ends the session with
//! FATAL 25P04 (PostgreSQL 17's behaviour). While the session waits for the
//! client, [`Session::idle_timeout`] tells the protocol layer how long it may
//! wait (`idle_in_transaction_session_timeout`, `idle_session_timeout`, what is
//! left of `transaction_timeout`).

use super::{Block, Session};
use crate::activity::InterruptCheck;
use crate::error::SqlError;
use sluice_guc::Settings;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The deadlines the interrupt check enforces, as microseconds after `base`;
/// 0 means none. Atomics because the check runs wherever the statement is.
pub(super) struct Deadlines {
    /// The clock's origin.
    pub(super) base: Instant,
    /// `statement_timeout` of the running statement.
    pub(super) statement: AtomicU64,
    /// `transaction_timeout` of the open transaction.
    pub(super) transaction: AtomicU64,
}

impl Deadlines {
    /// arm -- sets `deadline` to `timeout` from now (none for `None`).
    pub(super) fn arm(&self, deadline: &AtomicU64, timeout: Option<Duration>) {
        let at = timeout.map_or(0, |t| (self.base.elapsed() + t).as_micros().max(1) as u64);
        deadline.store(at, Ordering::Relaxed);
    }

    /// How long until `deadline` passes (zero once it has); `None` if unset.
    pub(super) fn left(&self, deadline: &AtomicU64) -> Option<Duration> {
        match deadline.load(Ordering::Relaxed) {
            0 => None,
            at => Some(Duration::from_micros(
                at.saturating_sub(self.base.elapsed().as_micros() as u64),
            )),
        }
    }

    /// Whether `deadline` is set and has passed.
    pub(super) fn passed(&self, deadline: &AtomicU64) -> bool {
        self.left(deadline).is_some_and(|d| d.is_zero())
    }
}

/// The session's interrupt check extended with the timeouts (see the module
/// documentation): past the transaction's deadline the session ends, past the
/// statement's the statement fails like a cancel.
pub(super) fn with_timeouts(outer: InterruptCheck, deadlines: Arc<Deadlines>) -> InterruptCheck {
    Arc::new(move || {
        outer()?;
        if deadlines.passed(&deadlines.transaction) {
            return Err(transaction_timeout_error());
        }
        if deadlines.passed(&deadlines.statement) {
            return Err(SqlError::new("57014", "canceling statement due to statement timeout"));
        }
        Ok(())
    })
}

/// FATAL 25P04: the transaction outlived `transaction_timeout`.
pub(super) fn transaction_timeout_error() -> SqlError {
    SqlError::new("25P04", "terminating connection due to transaction timeout")
}

impl Session {
    /// A timeout setting's value; `None` when it is 0 (disabled).
    pub(super) fn timeout_setting(&self, name: &str) -> Option<Duration> {
        self.core.settings.get_duration(name).filter(|d| !d.is_zero())
    }

    /// Starts the running statement's `statement_timeout` clock.
    pub(super) fn arm_statement_timeout(&mut self) {
        let timeout = self.timeout_setting("statement_timeout");
        self.deadlines.arm(&self.deadlines.statement, timeout);
    }

    /// Starts a new transaction's `transaction_timeout` clock.
    pub(super) fn arm_transaction_timeout(&mut self) {
        let timeout = self.timeout_setting("transaction_timeout");
        self.deadlines.arm(&self.deadlines.transaction, timeout);
    }

    /// Row waits of this statement follow the session's `lock_timeout` and
    /// `deadlock_timeout`, like its table lock waits.
    pub(super) fn apply_wait_timeouts(&mut self) {
        let lock_timeout = self.timeout_setting("lock_timeout");
        let deadlock_timeout = self
            .timeout_setting("deadlock_timeout")
            .unwrap_or(sluice_txn::lmgr::DEFAULT_DEADLOCK_TIMEOUT);
        let interrupts = self.core.interrupts.clone();
        if let Some(txn) = self.current_txn() {
            txn.set_wait_timeouts(lock_timeout, deadlock_timeout);
            txn.set_interrupt_check(Arc::new(move || interrupts().is_err()));
        }
    }

    /// follow_transaction_timeout -- a `transaction_timeout` set inside a
    /// transaction starts its clock now, and setting it to 0 stops it (as
    /// PostgreSQL's assign hook does).
    pub(super) fn follow_transaction_timeout(&mut self) {
        if matches!(self.block, Block::Idle) {
            return;
        }
        let armed = self.deadlines.left(&self.deadlines.transaction).is_some();
        match self.timeout_setting("transaction_timeout") {
            Some(t) if !armed => self.deadlines.arm(&self.deadlines.transaction, Some(t)),
            None if armed => self.deadlines.arm(&self.deadlines.transaction, None),
            _ => {}
        }
    }

    /// idle_timeout -- how long the session may now wait for the client's next
    /// command, and the FATAL error that ends it after that (see the module
    /// documentation); `None` to wait forever.
    pub fn idle_timeout(&mut self) -> Option<(Duration, SqlError)> {
        let mut limits = Vec::new();
        if let Block::Explicit(_) | Block::Failed(_) = self.block {
            if let Some(t) = self.timeout_setting("idle_in_transaction_session_timeout") {
                limits.push((
                    t,
                    SqlError::new(
                        "25P03",
                        "terminating connection due to idle-in-transaction timeout",
                    ),
                ));
            }
            if let Some(left) = self.deadlines.left(&self.deadlines.transaction) {
                limits.push((left, transaction_timeout_error()));
            }
        } else if let Some(t) = self.timeout_setting("idle_session_timeout") {
            limits.push((
                t,
                SqlError::new("57P05", "terminating connection due to idle-session timeout"),
            ));
        }
        limits.into_iter().min_by_key(|(t, _)| *t)
    }

    /// name_the_interrupt -- a wait that an interrupt ended (a row or lock
    /// wait in the access layer) reports a cancel "due to user request":
    /// below the SQL layer a cancel and a timeout look alike. The statement
    /// deadline tells them apart, so the client reads what PostgreSQL says.
    pub(super) fn name_the_interrupt(&self, error: SqlError) -> SqlError {
        if error.code == "57014" && self.deadlines.passed(&self.deadlines.statement) {
            return SqlError {
                message: "canceling statement due to statement timeout".into(),
                ..error
            };
        }
        error
    }
}
