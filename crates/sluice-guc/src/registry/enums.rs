//! The word lists of enum settings (PostgreSQL's `config_enum_entry` arrays).
//!
//! Order matters twice: the listed words appear in `pg_settings.enumvals` and
//! in the "Available values" hint in this order, and PostgreSQL's own order is
//! kept so both read the same. Hidden entries are accepted spellings that are
//! not advertised, mostly the boolean words (`true`, `yes`, `1`...) accepted
//! wherever `on`/`off` are values.

use super::EnumOption;

/// A listed word that is its own value.
const fn opt(name: &'static str) -> EnumOption {
    EnumOption { name, canonical: name, hidden: false }
}

/// An unlisted word that is its own value (`info` for `client_min_messages`).
const fn hidden(name: &'static str) -> EnumOption {
    EnumOption { name, canonical: name, hidden: true }
}

/// A listed word that stands for another value (`on` for `wal_compression`'s `pglz`).
const fn listed_alias(name: &'static str, canonical: &'static str) -> EnumOption {
    EnumOption { name, canonical, hidden: false }
}

/// An unlisted spelling of another value (`true` for `on`).
const fn alias(name: &'static str, canonical: &'static str) -> EnumOption {
    EnumOption { name, canonical, hidden: true }
}

/// The boolean spellings PostgreSQL accepts for `on`/`off`-like enum values.
macro_rules! bool_aliases {
    ($on:literal, $off:literal) => {
        [
            alias("true", $on),
            alias("false", $off),
            alias("yes", $on),
            alias("no", $off),
            alias("1", $on),
            alias("0", $off),
        ]
    };
}

/// Joins listed options and boolean aliases into one static array.
macro_rules! with_bool_aliases {
    ([$($o:expr),* $(,)?], $on:literal, $off:literal) => {{
        const A: [EnumOption; 6] = bool_aliases!($on, $off);
        &[$($o,)* A[0], A[1], A[2], A[3], A[4], A[5]]
    }};
}

/// `bytea_output`.
pub(crate) const BYTEA_OUTPUT: &[EnumOption] = &[opt("escape"), opt("hex")];

/// Message levels a client can ask for (`client_min_messages`).
pub(crate) const CLIENT_MESSAGE_LEVEL: &[EnumOption] = &[
    opt("debug5"),
    opt("debug4"),
    opt("debug3"),
    opt("debug2"),
    opt("debug1"),
    alias("debug", "debug2"),
    opt("log"),
    hidden("info"),
    opt("notice"),
    opt("warning"),
    opt("error"),
];

/// Message levels for the server log (`log_min_messages`), where LOG sorts high.
pub(crate) const SERVER_MESSAGE_LEVEL: &[EnumOption] = &[
    opt("debug5"),
    opt("debug4"),
    opt("debug3"),
    opt("debug2"),
    opt("debug1"),
    alias("debug", "debug2"),
    opt("info"),
    opt("notice"),
    opt("warning"),
    opt("error"),
    opt("log"),
    opt("fatal"),
    opt("panic"),
];

/// `IntervalStyle`.
pub(crate) const INTERVALSTYLE: &[EnumOption] =
    &[opt("postgres"), opt("postgres_verbose"), opt("sql_standard"), opt("iso_8601")];

/// `log_error_verbosity`.
pub(crate) const LOG_ERROR_VERBOSITY: &[EnumOption] =
    &[opt("terse"), opt("default"), opt("verbose")];

/// `log_statement`.
pub(crate) const LOG_STATEMENT: &[EnumOption] = &[opt("none"), opt("ddl"), opt("mod"), opt("all")];

/// `default_transaction_isolation`, `transaction_isolation`.
pub(crate) const ISOLATION_LEVEL: &[EnumOption] =
    &[opt("serializable"), opt("repeatable read"), opt("read committed"), opt("read uncommitted")];

/// `session_replication_role`.
pub(crate) const SESSION_REPLICATION_ROLE: &[EnumOption] =
    &[opt("origin"), opt("replica"), opt("local")];

/// `syslog_facility`.
pub(crate) const SYSLOG_FACILITY: &[EnumOption] = &[
    opt("local0"),
    opt("local1"),
    opt("local2"),
    opt("local3"),
    opt("local4"),
    opt("local5"),
    opt("local6"),
    opt("local7"),
];

/// `track_functions`.
pub(crate) const TRACK_FUNCTIONS: &[EnumOption] = &[opt("none"), opt("pl"), opt("all")];

/// `stats_fetch_consistency`.
pub(crate) const STATS_FETCH_CONSISTENCY: &[EnumOption] =
    &[opt("none"), opt("cache"), opt("snapshot")];

/// `xmlbinary`.
pub(crate) const XMLBINARY: &[EnumOption] = &[opt("base64"), opt("hex")];

/// `xmloption`.
pub(crate) const XMLOPTION: &[EnumOption] = &[opt("content"), opt("document")];

/// `backslash_quote`.
pub(crate) const BACKSLASH_QUOTE: &[EnumOption] =
    with_bool_aliases!([opt("safe_encoding"), opt("on"), opt("off")], "on", "off");

/// `compute_query_id`.
pub(crate) const COMPUTE_QUERY_ID: &[EnumOption] =
    with_bool_aliases!([opt("auto"), opt("regress"), opt("on"), opt("off")], "on", "off");

/// `constraint_exclusion`.
pub(crate) const CONSTRAINT_EXCLUSION: &[EnumOption] =
    with_bool_aliases!([opt("partition"), opt("on"), opt("off")], "on", "off");

/// `synchronous_commit`.
pub(crate) const SYNCHRONOUS_COMMIT: &[EnumOption] = with_bool_aliases!(
    [opt("local"), opt("remote_write"), opt("remote_apply"), opt("on"), opt("off")],
    "on",
    "off"
);

/// `huge_pages`.
pub(crate) const HUGE_PAGES: &[EnumOption] =
    with_bool_aliases!([opt("off"), opt("on"), opt("try")], "on", "off");

/// `recovery_prefetch`.
pub(crate) const RECOVERY_PREFETCH: &[EnumOption] =
    with_bool_aliases!([opt("off"), opt("on"), opt("try")], "on", "off");

/// `force_parallel_mode`.
pub(crate) const FORCE_PARALLEL_MODE: &[EnumOption] =
    with_bool_aliases!([opt("off"), opt("on"), opt("regress")], "on", "off");

/// `plan_cache_mode`.
pub(crate) const PLAN_CACHE_MODE: &[EnumOption] =
    &[opt("auto"), opt("force_generic_plan"), opt("force_custom_plan")];

/// `password_encryption`.
pub(crate) const PASSWORD_ENCRYPTION: &[EnumOption] = &[opt("md5"), opt("scram-sha-256")];

/// `ssl_max_protocol_version` (the empty word means "no limit").
pub(crate) const SSL_PROTOCOL_VERSIONS: &[EnumOption] =
    &[opt(""), opt("TLSv1"), opt("TLSv1.1"), opt("TLSv1.2"), opt("TLSv1.3")];

/// `ssl_min_protocol_version` (as above without the empty word).
pub(crate) const SSL_MIN_PROTOCOL_VERSIONS: &[EnumOption] =
    &[opt("TLSv1"), opt("TLSv1.1"), opt("TLSv1.2"), opt("TLSv1.3")];

/// `recovery_init_sync_method`.
pub(crate) const RECOVERY_INIT_SYNC_METHOD: &[EnumOption] = &[opt("fsync"), opt("syncfs")];

/// `shared_memory_type`.
pub(crate) const SHARED_MEMORY_TYPE: &[EnumOption] = &[opt("sysv"), opt("mmap")];

/// `default_toast_compression`.
pub(crate) const TOAST_COMPRESSION: &[EnumOption] = &[opt("pglz"), opt("lz4")];

/// `wal_compression`: `on` means pglz.
pub(crate) const WAL_COMPRESSION: &[EnumOption] = with_bool_aliases!(
    [opt("pglz"), opt("lz4"), opt("zstd"), listed_alias("on", "pglz"), opt("off")],
    "pglz",
    "off"
);

/// `wal_level`; `archive` and `hot_standby` are pre-9.6 names of `replica`.
pub(crate) const WAL_LEVEL: &[EnumOption] = &[
    opt("minimal"),
    opt("replica"),
    alias("archive", "replica"),
    alias("hot_standby", "replica"),
    opt("logical"),
];

/// `archive_mode`.
pub(crate) const ARCHIVE_MODE: &[EnumOption] =
    with_bool_aliases!([opt("always"), opt("on"), opt("off")], "on", "off");

/// `recovery_target_action`.
pub(crate) const RECOVERY_TARGET_ACTION: &[EnumOption] =
    &[opt("pause"), opt("promote"), opt("shutdown")];

/// `wal_sync_method`.
pub(crate) const WAL_SYNC_METHOD: &[EnumOption] =
    &[opt("fsync"), opt("fdatasync"), opt("open_sync"), opt("open_datasync")];

/// `dynamic_shared_memory_type`.
pub(crate) const DYNAMIC_SHARED_MEMORY: &[EnumOption] = &[opt("posix"), opt("sysv"), opt("mmap")];
