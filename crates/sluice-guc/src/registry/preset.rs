//! Read-only facts about the server (`Preset Options`) and the ungrouped
//! per-session identity settings (`is_superuser`, `role`, `seed`,
//! `session_authorization`), which are hidden from SHOW ALL.

use super::flags::{
    DISALLOW_IN_FILE, IS_NAME, NOT_IN_SAMPLE, NO_RESET_ALL, NO_SHOW_ALL, REPORT, RUNTIME_COMPUTED,
};
use super::Category::{PresetOptions, Ungrouped};
use super::Context::{Internal, User};
use super::{boolean, int, real, string, Setting};
use crate::hooks;
use crate::units::Unit::{Blocks, Bytes, Mb};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    int("block_size", Internal, PresetOptions, 8192, 8192, 8192)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the size of a disk block."),
    boolean("data_checksums", Internal, PresetOptions, false)
        .flags(NOT_IN_SAMPLE | RUNTIME_COMPUTED)
        .describe("Shows whether data checksums are turned on for this cluster."),
    int("data_directory_mode", Internal, PresetOptions, 448, 0, 511)
        .flags(NOT_IN_SAMPLE | RUNTIME_COMPUTED)
        .show(hooks::show_octal)
        .describe("Shows the mode of the data directory.")
        .extra("The parameter value is a numeric mode specification in the form accepted by the chmod and umask system calls. (To use the customary octal format the number must start with a 0 (zero).)"),
    boolean("debug_assertions", Internal, PresetOptions, false)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows whether the running server has assertion checks enabled."),
    boolean("in_hot_standby", Internal, PresetOptions, false)
        .flags(NOT_IN_SAMPLE | REPORT)
        .describe("Shows whether hot standby is currently active."),
    boolean("integer_datetimes", Internal, PresetOptions, true)
        .flags(NOT_IN_SAMPLE | REPORT)
        .describe("Shows whether datetimes are integer based."),
    boolean("is_superuser", Internal, Ungrouped, false)
        .flags(NO_RESET_ALL | NO_SHOW_ALL | NOT_IN_SAMPLE | REPORT | DISALLOW_IN_FILE)
        .describe("Shows whether the current user is a superuser."),
    string("lc_collate", Internal, PresetOptions, Some("C"))
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the collation order locale."),
    string("lc_ctype", Internal, PresetOptions, Some("C"))
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the character classification and case conversion locale."),
    int("max_function_args", Internal, PresetOptions, 100, 100, 100)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the maximum number of function arguments."),
    int("max_identifier_length", Internal, PresetOptions, 63, 63, 63)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the maximum identifier length."),
    int("max_index_keys", Internal, PresetOptions, 32, 32, 32)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the maximum number of index keys."),
    string("role", User, Ungrouped, Some("none"))
        .flags(NO_RESET_ALL | NO_SHOW_ALL | NOT_IN_SAMPLE | IS_NAME | DISALLOW_IN_FILE)
        .describe("Sets the current role."),
    real("seed", User, Ungrouped, 0.0, -1.0, 1.0)
        .flags(NO_RESET_ALL | NO_SHOW_ALL | NOT_IN_SAMPLE | DISALLOW_IN_FILE)
        .show(hooks::show_seed)
        .describe("Sets the seed for random-number generation."),
    int("segment_size", Internal, PresetOptions, 131072, 131072, 131072)
        .unit(Blocks)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the number of pages per disk file."),
    string("server_encoding", Internal, PresetOptions, Some("SQL_ASCII"))
        .flags(NOT_IN_SAMPLE | REPORT)
        .describe("Shows the server (database) character set encoding."),
    string("server_version", Internal, PresetOptions, Some("15.20 (Debian 15.20-0+deb12u1)"))
        .flags(NOT_IN_SAMPLE | REPORT)
        .describe("Shows the server version."),
    int("server_version_num", Internal, PresetOptions, 150020, 150020, 150020)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the server version as an integer."),
    string("session_authorization", User, Ungrouped, None)
        .flags(NO_RESET_ALL | NO_SHOW_ALL | NOT_IN_SAMPLE | REPORT | IS_NAME | DISALLOW_IN_FILE)
        .describe("Sets the session user name."),
    int("shared_memory_size", Internal, PresetOptions, 0, 0, i32::MAX)
        .unit(Mb)
        .flags(NOT_IN_SAMPLE | RUNTIME_COMPUTED)
        .describe("Shows the size of the server's main shared memory area (rounded up to the nearest MB)."),
    int("shared_memory_size_in_huge_pages", Internal, PresetOptions, -1, -1, i32::MAX)
        .flags(NOT_IN_SAMPLE | RUNTIME_COMPUTED)
        .describe("Shows the number of huge pages needed for the main shared memory area.")
        .extra("-1 indicates that the value could not be determined."),
    string("ssl_library", Internal, PresetOptions, Some("OpenSSL"))
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the name of the SSL library."),
    int("wal_block_size", Internal, PresetOptions, 8192, 8192, 8192)
        .flags(NOT_IN_SAMPLE)
        .describe("Shows the block size in the write ahead log."),
    int("wal_segment_size", Internal, PresetOptions, 16777216, 1048576, 1073741824)
        .unit(Bytes)
        .flags(NOT_IN_SAMPLE | RUNTIME_COMPUTED)
        .describe("Shows the size of write ahead log segments."),
];
