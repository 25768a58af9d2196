//! Compatibility with earlier versions and other systems, and error handling
//! (`Version and Platform Compatibility`, `Error Handling`).

use super::enums::{BACKSLASH_QUOTE, RECOVERY_INIT_SYNC_METHOD};
use super::flags::{NOT_IN_SAMPLE, NO_SHOW_ALL, REPORT};
use super::Category::{CompatClients, CompatPrevious, ErrorHandling};
use super::Context::{Postmaster, Sighup, Superuser, User};
use super::{boolean, enumerated, Setting};
use crate::hooks;

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    boolean("array_nulls", User, CompatPrevious, true)
        .describe("Enable input of NULL elements in arrays.")
        .extra("When turned on, unquoted NULL in an array input value means a null value; otherwise it is taken literally."),
    enumerated("backslash_quote", User, CompatPrevious, "safe_encoding", BACKSLASH_QUOTE)
        .describe("Sets whether \"\\'\" is allowed in string literals."),
    boolean("data_sync_retry", Postmaster, ErrorHandling, false)
        .describe("Whether to continue running after a failure to sync data files."),
    boolean("default_with_oids", User, CompatPrevious, false)
        .flags(NO_SHOW_ALL | NOT_IN_SAMPLE)
        .check(hooks::default_with_oids)
        .describe("WITH OIDS is no longer supported; this can only be false."),
    boolean("escape_string_warning", User, CompatPrevious, true)
        .describe("Warn about backslash escapes in ordinary string literals."),
    boolean("exit_on_error", User, ErrorHandling, false)
        .describe("Terminate session on any error."),
    boolean("lo_compat_privileges", Superuser, CompatPrevious, false)
        .describe("Enables backward compatibility mode for privilege checks on large objects.")
        .extra("Skips privilege checks when reading or modifying large objects, for compatibility with PostgreSQL releases prior to 9.0."),
    boolean("quote_all_identifiers", User, CompatPrevious, false)
        .describe("When generating SQL fragments, quote all identifiers."),
    enumerated("recovery_init_sync_method", Sighup, ErrorHandling, "fsync", RECOVERY_INIT_SYNC_METHOD)
        .describe("Sets the method for synchronizing the data directory before crash recovery."),
    boolean("restart_after_crash", Sighup, ErrorHandling, true)
        .describe("Reinitialize server after backend crash."),
    boolean("standard_conforming_strings", User, CompatPrevious, true)
        .flags(REPORT)
        .describe("Causes '...' strings to treat backslashes literally."),
    boolean("synchronize_seqscans", User, CompatPrevious, true)
        .describe("Enable synchronized sequential scans."),
    boolean("transform_null_equals", User, CompatClients, false)
        .describe("Treats \"expr=NULL\" as \"expr IS NULL\".")
        .extra("When turned on, expressions of the form expr = NULL (or NULL = expr) are treated as expr IS NULL, that is, they return true if expr evaluates to the null value, and false otherwise. The correct behavior of expr = NULL is to always return null (unknown)."),
];
