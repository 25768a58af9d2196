//! Configuration settings: PostgreSQL's "grand unified configuration" (GUC),
//! its `utils/misc/guc.c`, `guc_tables.c` and `guc-file.l`.
//!
//! # The idea
//!
//! Every knob of the server is a named *setting* with a type (bool, integer,
//! real, string, enum), often a unit, a boot value, and a *context* that says
//! when it may change: never (`server_version`), at server start
//! (`shared_buffers`), on configuration reload (`checkpoint_timeout`), at
//! connection start (`log_connections`), or at any time by SET
//! (`work_mem`, some by superusers only). The [`registry`] holds all of them,
//! with PostgreSQL 15's names, ranges, descriptions and categories, so that
//! `SHOW`, `pg_settings`, `postgresql.conf` and drivers behave as they do
//! against PostgreSQL.
//!
//! # Two layers
//!
//! ```text
//!   GlobalConfig (one per server, shared)      SessionSettings (one per session)
//!   ───────────────────────────────────        ─────────────────────────────────
//!   boot value                                 copy of the server's values
//!   computed defaults (wal_buffers...)     ──►  + ALTER ROLE/DATABASE SET
//!   postgresql.conf, postgresql.auto.conf       + startup packet options
//!   -c name=value                               + SET / SET LOCAL (stacked per
//!                                                 transaction level)
//! ```
//!
//! Each value carries its [`Source`], and a value only replaces one from an
//! equal or lower source: `-c` beats the files even after a reload, a SET
//! beats everything. [`GlobalConfig::reload`] re-reads the files; sessions
//! adopt the new server-wide values at their next [`SessionSettings::sync`]
//! wherever they did not set their own. Settings that need a restart are
//! marked `pending_restart` instead of changing.
//!
//! # Transactions
//!
//! SET inside a transaction that aborts is undone; SET LOCAL lasts until the
//! transaction ends; savepoints and functions with SET clauses nest. The
//! session keeps PostgreSQL's per-setting stack of saved values
//! (`session/var.rs` explains the states and the merge rules).
//!
//! # Text in, text out
//!
//! Values are parsed and printed exactly as PostgreSQL does (`value.rs`,
//! `units.rs`): `'128MB'`, `'5min'`, `'0x10'`, boolean prefixes; SHOW picks
//! the largest exact unit (`shared_buffers` → `128MB`), `pg_settings` shows
//! base units. Errors ([`GucError`]) have PostgreSQL's SQLSTATEs and texts.
//!
//! # Reading settings from engine code
//!
//! Both layers implement [`Settings`]: `session.get_bool("enable_seqscan")`,
//! `config.get_duration("checkpoint_timeout")`. These cannot fail for a
//! registered name; a misspelt name in sluice's own code panics (see
//! `settings.rs`), which the calling code's unit tests catch.
//!
//! # Not here
//!
//! Checks that need the catalogs or the transaction state (does the role or
//! tablespace exist, is it too late for SET TRANSACTION ISOLATION LEVEL) are
//! the SQL layer's, made before it calls [`SessionSettings::set`]. sluice
//! reads no environment variables (`PGPORT`, `PGDATESTYLE`). Time zone
//! abbreviation files are not loaded; `timezone_abbreviations` only accepts
//! the names of the files PostgreSQL ships.

mod conffile;
mod error;
mod global;
mod hooks;
pub mod registry;
mod session;
mod settings;
mod source;
pub mod units;
mod validate;
mod value;
mod views;

pub use conffile::ConfigItem;
pub use error::{FileOutcome, GucError, InvalidValue, Result};
pub use global::{ConfigOptions, GlobalConfig, ReloadReport, ServerIdentity};
pub use hooks::{
    canonical_encoding, split_identifier_list, CheckHook, HookContext, HookError, ShowHook,
    ENCODINGS, SERVER_ENCODING, SERVER_ENCODING_COUNT,
};
pub use session::{Action, NestLevel, SessionSettings};
pub use settings::Settings;
pub use source::Source;
pub use validate::{flatten_set_args, SetArg};
pub use value::Value;
pub use views::{SettingRow, ShowAllRow};
