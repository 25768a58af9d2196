//! The write-ahead log: durability, checkpoints, archiving, recovery (`Write-Ahead Log`).

use super::enums::{
    ARCHIVE_MODE, RECOVERY_PREFETCH, RECOVERY_TARGET_ACTION, SYNCHRONOUS_COMMIT, WAL_COMPRESSION,
    WAL_LEVEL, WAL_SYNC_METHOD,
};
use super::flags::SUPERUSER_ONLY;
use super::Category::{
    WalArchiveRecovery, WalArchiving, WalCheckpoints, WalRecovery, WalRecoveryTarget, WalSettings,
};
use super::Context::{Postmaster, Sighup, Superuser, User};
use super::{boolean, enumerated, int, real, string, Setting};
use crate::hooks;
use crate::units::Unit::{Blocks, Bytes, Kb, Mb, Ms, XBlocks, S};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    string("archive_cleanup_command", Sighup, WalArchiveRecovery, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the shell command that will be executed at every restart point."),
    string("archive_command", Sighup, WalArchiving, Some(""))
        .flags(SUPERUSER_ONLY)
        .show(hooks::show_archive_command)
        .describe("Sets the shell command that will be called to archive a WAL file.")
        .extra("This is used only if \"archive_library\" is not set."),
    string("archive_library", Sighup, WalArchiving, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the library that will be called to archive a WAL file.")
        .extra("An empty string indicates that \"archive_command\" should be used."),
    enumerated("archive_mode", Postmaster, WalArchiving, "off", ARCHIVE_MODE)
        .describe("Allows archiving of WAL files using archive_command."),
    int("archive_timeout", Sighup, WalArchiving, 0, 0, 1073741823)
        .unit(S)
        .describe("Sets the amount of time to wait before forcing a switch to the next WAL file."),
    real("checkpoint_completion_target", Sighup, WalCheckpoints, 0.9, 0.0, 1.0)
        .describe("Time spent flushing dirty buffers during checkpoint, as fraction of checkpoint interval."),
    int("checkpoint_flush_after", Sighup, WalCheckpoints, 32, 0, 256)
        .unit(Blocks)
        .describe("Number of pages after which previously performed writes are flushed to disk."),
    int("checkpoint_timeout", Sighup, WalCheckpoints, 300, 30, 86400)
        .unit(S)
        .describe("Sets the maximum time between automatic WAL checkpoints."),
    int("checkpoint_warning", Sighup, WalCheckpoints, 30, 0, i32::MAX)
        .unit(S)
        .describe("Sets the maximum time before warning if checkpoints triggered by WAL volume happen too frequently.")
        .extra("Write a message to the server log if checkpoints caused by the filling of WAL segment files happen more frequently than this amount of time. Zero turns off the warning."),
    int("commit_delay", Superuser, WalSettings, 0, 0, 100000)
        .describe("Sets the delay in microseconds between transaction commit and flushing WAL to disk."),
    int("commit_siblings", User, WalSettings, 5, 0, 1000)
        .describe("Sets the minimum number of concurrent open transactions required before performing commit_delay."),
    boolean("fsync", Sighup, WalSettings, true)
        .describe("Forces synchronization of updates to disk.")
        .extra("The server will use the fsync() system call in several places to make sure that updates are physically written to disk. This ensures that a database cluster will recover to a consistent state after an operating system or hardware crash."),
    boolean("full_page_writes", Sighup, WalSettings, true)
        .describe("Writes full pages to WAL when first modified after a checkpoint.")
        .extra("A page write in process during an operating system crash might be only partially written to disk.  During recovery, the row changes stored in WAL are not enough to recover.  This option writes pages when first modified after a checkpoint to WAL so full recovery is possible."),
    int("max_wal_size", Sighup, WalCheckpoints, 1024, 2, i32::MAX)
        .unit(Mb)
        .describe("Sets the WAL size that triggers a checkpoint."),
    int("min_wal_size", Sighup, WalCheckpoints, 80, 2, i32::MAX)
        .unit(Mb)
        .describe("Sets the minimum size to shrink the WAL to."),
    string("recovery_end_command", Sighup, WalArchiveRecovery, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the shell command that will be executed once at the end of recovery."),
    enumerated("recovery_prefetch", Sighup, WalRecovery, "try", RECOVERY_PREFETCH)
        .describe("Prefetch referenced blocks during recovery.")
        .extra("Look ahead in the WAL to find references to uncached data."),
    string("recovery_target", Postmaster, WalRecoveryTarget, Some(""))
        .describe("Set to \"immediate\" to end recovery as soon as a consistent state is reached."),
    enumerated("recovery_target_action", Postmaster, WalRecoveryTarget, "pause", RECOVERY_TARGET_ACTION)
        .describe("Sets the action to perform upon reaching the recovery target."),
    boolean("recovery_target_inclusive", Postmaster, WalRecoveryTarget, true)
        .describe("Sets whether to include or exclude transaction with recovery target."),
    string("recovery_target_lsn", Postmaster, WalRecoveryTarget, Some(""))
        .describe("Sets the LSN of the write-ahead log location up to which recovery will proceed."),
    string("recovery_target_name", Postmaster, WalRecoveryTarget, Some(""))
        .describe("Sets the named restore point up to which recovery will proceed."),
    string("recovery_target_time", Postmaster, WalRecoveryTarget, Some(""))
        .describe("Sets the time stamp up to which recovery will proceed."),
    string("recovery_target_timeline", Postmaster, WalRecoveryTarget, Some("latest"))
        .describe("Specifies the timeline to recover into."),
    string("recovery_target_xid", Postmaster, WalRecoveryTarget, Some(""))
        .describe("Sets the transaction ID up to which recovery will proceed."),
    string("restore_command", Sighup, WalArchiveRecovery, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the shell command that will be called to retrieve an archived WAL file."),
    enumerated("synchronous_commit", User, WalSettings, "on", SYNCHRONOUS_COMMIT)
        .describe("Sets the current transaction's synchronization level."),
    int("wal_buffers", Postmaster, WalSettings, -1, -1, 262143)
        .unit(XBlocks)
        .describe("Sets the number of disk-page buffers in shared memory for WAL."),
    enumerated("wal_compression", Superuser, WalSettings, "off", WAL_COMPRESSION)
        .describe("Compresses full-page writes written in WAL file with specified method."),
    int("wal_decode_buffer_size", Postmaster, WalRecovery, 524288, 65536, 1073741823)
        .unit(Bytes)
        .describe("Buffer size for reading ahead in the WAL during recovery.")
        .extra("Maximum distance to read ahead in the WAL to prefetch referenced data blocks."),
    boolean("wal_init_zero", Superuser, WalSettings, true)
        .describe("Writes zeroes to new WAL files before first use."),
    enumerated("wal_level", Postmaster, WalSettings, "replica", WAL_LEVEL)
        .describe("Sets the level of information written to the WAL."),
    boolean("wal_log_hints", Postmaster, WalSettings, false)
        .describe("Writes full pages to WAL when first modified after a checkpoint, even for a non-critical modification."),
    boolean("wal_recycle", Superuser, WalSettings, true)
        .describe("Recycles WAL files by renaming them."),
    int("wal_skip_threshold", User, WalSettings, 2048, 0, i32::MAX)
        .unit(Kb)
        .describe("Minimum size of new file to fsync instead of writing WAL."),
    enumerated("wal_sync_method", Sighup, WalSettings, "fdatasync", WAL_SYNC_METHOD)
        .describe("Selects the method used for forcing WAL updates to disk."),
    int("wal_writer_delay", Sighup, WalSettings, 200, 1, 10000)
        .unit(Ms)
        .describe("Time between WAL flushes performed in the WAL writer."),
    int("wal_writer_flush_after", Sighup, WalSettings, 128, 0, i32::MAX)
        .unit(XBlocks)
        .describe("Amount of WAL written out by WAL writer that triggers a flush."),
];
