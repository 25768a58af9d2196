//! Lock management (`Lock Management`).

use super::Category::LockManagement;
use super::Context::{Postmaster, Sighup, Superuser};
use super::{int, Setting};
use crate::units::Unit::Ms;

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    int("deadlock_timeout", Superuser, LockManagement, 1000, 1, i32::MAX)
        .unit(Ms)
        .describe("Sets the time to wait on a lock before checking for deadlock."),
    int("max_locks_per_transaction", Postmaster, LockManagement, 64, 10, i32::MAX)
        .describe("Sets the maximum number of locks per transaction.")
        .extra("The shared lock table is sized on the assumption that at most max_locks_per_transaction * max_connections distinct objects will need to be locked at any one time."),
    int("max_pred_locks_per_page", Sighup, LockManagement, 2, 0, i32::MAX)
        .describe("Sets the maximum number of predicate-locked tuples per page.")
        .extra("If more than this number of tuples on the same page are locked by a connection, those locks are replaced by a page-level lock."),
    int("max_pred_locks_per_relation", Sighup, LockManagement, -2, i32::MIN, i32::MAX)
        .describe("Sets the maximum number of predicate-locked pages and tuples per relation.")
        .extra("If more than this total of pages and tuples in the same relation are locked by a connection, those locks are replaced by a relation-level lock."),
    int("max_pred_locks_per_transaction", Postmaster, LockManagement, 64, 10, i32::MAX)
        .describe("Sets the maximum number of predicate locks per transaction.")
        .extra("The shared predicate lock table is sized on the assumption that at most max_pred_locks_per_transaction * max_connections distinct objects will need to be locked at any one time."),
];
