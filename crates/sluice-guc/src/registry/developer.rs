//! Options for developers (`Developer Options`): debugging and testing aids.

use super::enums::{CLIENT_MESSAGE_LEVEL, FORCE_PARALLEL_MODE};
use super::flags::{EXPLAIN, LIST_INPUT, NOT_IN_SAMPLE};
use super::Category::DeveloperOptions;
use super::Context::{Backend, Postmaster, Sighup, SuBackend, Superuser, User};
use super::{boolean, enumerated, int, string, Setting};
use crate::units::Unit::S;

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    boolean("allow_in_place_tablespaces", Superuser, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Allows tablespaces directly inside pg_tblspc, for testing."),
    boolean("allow_system_table_mods", Superuser, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Allows modifications of the structure of system tables."),
    string("backtrace_functions", Superuser, DeveloperOptions, Some(""))
        .flags(NOT_IN_SAMPLE)
        .describe("Log backtrace for errors in these functions."),
    int("debug_discard_caches", Superuser, DeveloperOptions, 0, 0, 0)
        .flags(NOT_IN_SAMPLE)
        .describe("Aggressively flush system caches for debugging purposes."),
    enumerated("force_parallel_mode", User, DeveloperOptions, "off", FORCE_PARALLEL_MODE)
        .flags(EXPLAIN | NOT_IN_SAMPLE)
        .describe("Forces use of parallel query facilities.")
        .extra("If possible, run query using a parallel worker and with parallel restrictions."),
    boolean("ignore_checksum_failure", Superuser, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Continues processing after a checksum failure.")
        .extra("Detection of a checksum failure normally causes PostgreSQL to report an error, aborting the current transaction. Setting ignore_checksum_failure to true causes the system to ignore the failure (but still report a warning), and continue processing. This behavior could cause crashes or other serious problems. Only has an effect if checksums are enabled."),
    boolean("ignore_invalid_pages", Postmaster, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Continues recovery after an invalid pages failure.")
        .extra("Detection of WAL records having references to invalid pages during recovery causes PostgreSQL to raise a PANIC-level error, aborting the recovery. Setting ignore_invalid_pages to true causes the system to ignore invalid page references in WAL records (but still report a warning), and continue recovery. This behavior may cause crashes, data loss, propagate or hide corruption, or other serious problems. Only has an effect during recovery or in standby mode."),
    boolean("ignore_system_indexes", Backend, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Disables reading from system indexes.")
        .extra("It does not prevent updating the indexes, so it is safe to use.  The worst consequence is slowness."),
    boolean("jit_debugging_support", SuBackend, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Register JIT-compiled functions with debugger."),
    boolean("jit_dump_bitcode", Superuser, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Write out LLVM bitcode to facilitate JIT debugging."),
    boolean("jit_expressions", User, DeveloperOptions, true)
        .flags(NOT_IN_SAMPLE)
        .describe("Allow JIT compilation of expressions."),
    boolean("jit_profiling_support", SuBackend, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Register JIT-compiled functions with perf profiler."),
    boolean("jit_tuple_deforming", User, DeveloperOptions, true)
        .flags(NOT_IN_SAMPLE)
        .describe("Allow JIT compilation of tuple deforming."),
    int("post_auth_delay", Backend, DeveloperOptions, 0, 0, 2147)
        .unit(S)
        .flags(NOT_IN_SAMPLE)
        .describe("Sets the amount of time to wait after authentication on connection startup.")
        .extra("This allows attaching a debugger to the process."),
    int("pre_auth_delay", Sighup, DeveloperOptions, 0, 0, 60)
        .unit(S)
        .flags(NOT_IN_SAMPLE)
        .describe("Sets the amount of time to wait before authentication on connection startup.")
        .extra("This allows attaching a debugger to the process."),
    boolean("remove_temp_files_after_crash", Sighup, DeveloperOptions, true)
        .flags(NOT_IN_SAMPLE)
        .describe("Remove temporary files after backend crash."),
    boolean("trace_notify", User, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Generates debugging output for LISTEN and NOTIFY."),
    enumerated("trace_recovery_messages", Sighup, DeveloperOptions, "log", CLIENT_MESSAGE_LEVEL)
        .flags(NOT_IN_SAMPLE)
        .describe("Enables logging of recovery-related debugging information.")
        .extra("Each level includes all the levels that follow it. The later the level, the fewer messages are sent."),
    boolean("trace_sort", User, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Emit information about resource usage in sorting."),
    string("wal_consistency_checking", Superuser, DeveloperOptions, Some(""))
        .flags(NOT_IN_SAMPLE | LIST_INPUT)
        .describe("Sets the WAL resource managers for which WAL consistency checks are done.")
        .extra("Full-page images will be logged for all data blocks and cross-checked against the results of WAL replay."),
    boolean("zero_damaged_pages", Superuser, DeveloperOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Continues processing past damaged page headers.")
        .extra("Detection of a damaged page header normally causes PostgreSQL to report an error, aborting the current transaction. Setting zero_damaged_pages to true causes the system to instead report a warning, zero out the damaged page, and continue processing. This behavior will destroy data, namely all the rows on the damaged page."),
];
