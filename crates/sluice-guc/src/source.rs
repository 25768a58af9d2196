//! [`Source`]: where a value came from, which decides what may override it.
//!
//! A value is only replaced by one from an equal or higher source (except
//! `RESET` and transaction rollback, which restore earlier values): a
//! `-c work_mem=8MB` on the command line beats `work_mem` in
//! `postgresql.conf` and in `postgresql.auto.conf` (ALTER SYSTEM), even after
//! a reload; a `SET` beats everything below it. The order is PostgreSQL's
//! `GucSource`, and `pg_settings.source` shows [`Source::as_str`].

/// The origin of a setting's value, lowest priority first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// The boot value.
    Default,
    /// A default computed at startup (`wal_buffers` from `shared_buffers`,
    /// `client_encoding` from the server encoding, sluice's own defaults).
    DynamicDefault,
    /// `postgresql.conf`, its includes, or `postgresql.auto.conf`.
    File,
    /// `-c name=value` when the server started.
    CommandLine,
    /// `ALTER ROLE ALL SET` (applied at connection start).
    Global,
    /// `ALTER DATABASE SET`.
    Database,
    /// `ALTER ROLE SET`.
    User,
    /// `ALTER ROLE IN DATABASE SET`.
    DatabaseUser,
    /// The startup packet (`options=-c ...`, `application_name`...).
    Client,
    /// Fixed by the server (`data_directory`, `is_superuser`).
    Override,
    /// `SET`, `set_config()`, `RESET`.
    Session,
}

impl Source {
    /// The name `pg_settings.source` shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Default | Source::DynamicDefault => "default",
            Source::File => "configuration file",
            Source::CommandLine => "command line",
            Source::Global => "global",
            Source::Database => "database",
            Source::User => "user",
            Source::DatabaseUser => "database user",
            Source::Client => "client",
            Source::Override => "override",
            Source::Session => "session",
        }
    }

    /// Whether a value from this source belongs to the server-wide layer
    /// ([`crate::GlobalConfig`]) rather than to one session.
    pub(crate) fn is_server_wide(self) -> bool {
        self <= Source::CommandLine
    }
}
