//! The registry: every setting sluice knows, as PostgreSQL 15 defines it
//! (PostgreSQL's `guc_tables.c`).
//!
//! A [`Setting`] is static data: name, type, boot value, range, unit, the
//! [`Context`] that says when it may change, the [`Category`] and descriptions
//! `pg_settings` shows, [`flags`], and optional check and show hooks. Nothing
//! here changes at run time; current values live in [`crate::GlobalConfig`]
//! (the server-wide layer) and [`crate::SessionSettings`] (one per session).
//!
//! The table is PostgreSQL 15's complete list (what `pg_settings` shows, plus
//! the hidden `is_superuser`, `role`, `seed`, `session_authorization`,
//! `default_with_oids` and `ssl_renegotiation_limit`) and one newer setting,
//! PostgreSQL 17's `transaction_timeout`, which sluice implements. The list is
//! complete so that configuration files, drivers and tools written for
//! PostgreSQL are accepted; which settings take effect is decided by the
//! engine code that reads them. Deliberate differences from PostgreSQL:
//! `jit` boots off (sluice has no JIT); `lc_messages` defaults to `C`;
//! `data_checksums` is on; `ssl = on` and `bonjour = on` are refused as in a
//! PostgreSQL built without them; `client_encoding` accepts only UTF8 and
//! SQL_ASCII (sluice converts no encodings).
//!
//! The entries are split by category into one file each, sorted by name
//! within a file; the lookup map over all of them is built once, on first use.

mod autovacuum;
mod client;
mod compat;
mod connections;
mod developer;
pub(crate) mod enums;
mod file_locations;
mod locks;
mod logging;
mod planner;
mod preset;
mod replication;
mod resources;
mod statistics;
mod wal;

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::hooks::{CheckHook, ShowHook};
use crate::units::Unit;

/// When a setting may change: PostgreSQL's `GucContext`, weakest last.
///
/// The order matters: PostgreSQL compares contexts (`context < PGC_SIGHUP`
/// means "needs a restart"), so the variants are declared in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Context {
    /// Fixed by the server (`server_version`); never settable.
    Internal,
    /// Only at server start: command line or configuration file.
    Postmaster,
    /// Configuration file or command line; a reload applies changes.
    Sighup,
    /// Like `Backend`, but only superusers may set it at connection start.
    SuBackend,
    /// Only at connection start (startup packet), or from the file for new sessions.
    Backend,
    /// `SET` by superusers.
    Superuser,
    /// `SET` by anybody.
    User,
}

impl Context {
    /// The name `pg_settings.context` shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Context::Internal => "internal",
            Context::Postmaster => "postmaster",
            Context::Sighup => "sighup",
            Context::SuBackend => "superuser-backend",
            Context::Backend => "backend",
            Context::Superuser => "superuser",
            Context::User => "user",
        }
    }
}

/// The group a setting is listed under (`pg_settings.category`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// Settings with no group (`is_superuser`, `role`...).
    Ungrouped,
    /// Where the configuration files and data directory are.
    FileLocations,
    /// Listening sockets and connection limits.
    ConnAuthSettings,
    /// Authentication.
    ConnAuthAuth,
    /// SSL.
    ConnAuthSsl,
    /// Memory budgets.
    ResourcesMem,
    /// Temporary file limits.
    ResourcesDisk,
    /// Open files.
    ResourcesKernel,
    /// VACUUM's cost-based throttling.
    ResourcesVacuumDelay,
    /// The background writer.
    ResourcesBgwriter,
    /// I/O concurrency and worker processes.
    ResourcesAsynchronous,
    /// WAL writing and durability.
    WalSettings,
    /// Checkpoints.
    WalCheckpoints,
    /// WAL archiving.
    WalArchiving,
    /// Recovery behaviour.
    WalRecovery,
    /// Restoring archived WAL.
    WalArchiveRecovery,
    /// Point-in-time recovery targets.
    WalRecoveryTarget,
    /// WAL senders and slots.
    ReplicationSending,
    /// Synchronous replication on the primary.
    ReplicationPrimary,
    /// Hot standby.
    ReplicationStandby,
    /// Logical replication subscribers.
    ReplicationSubscribers,
    /// Planner method switches (`enable_*`).
    QueryTuningMethod,
    /// Planner cost constants.
    QueryTuningCost,
    /// The genetic query optimizer.
    QueryTuningGeqo,
    /// Other planner options.
    QueryTuningOther,
    /// Log destinations.
    LoggingWhere,
    /// Log thresholds.
    LoggingWhen,
    /// Log contents.
    LoggingWhat,
    /// Process titles.
    ProcessTitle,
    /// Monitoring.
    StatsMonitoring,
    /// Cumulative statistics.
    StatsCumulative,
    /// Autovacuum.
    Autovacuum,
    /// Statement behaviour defaults.
    ClientConnStatement,
    /// Locale and formatting defaults.
    ClientConnLocale,
    /// Shared library preloading.
    ClientConnPreload,
    /// Other client defaults.
    ClientConnOther,
    /// Lock management.
    LockManagement,
    /// Compatibility with previous PostgreSQL versions.
    CompatPrevious,
    /// Compatibility with other platforms and clients.
    CompatClients,
    /// Error handling.
    ErrorHandling,
    /// Read-only facts about the server build.
    PresetOptions,
    /// Custom (placeholder) settings with a dot in their name.
    CustomOptions,
    /// Developer options.
    DeveloperOptions,
}

impl Category {
    /// The text `pg_settings.category` shows.
    pub fn as_str(self) -> &'static str {
        use Category::*;
        match self {
            Ungrouped => "Ungrouped",
            FileLocations => "File Locations",
            ConnAuthSettings => "Connections and Authentication / Connection Settings",
            ConnAuthAuth => "Connections and Authentication / Authentication",
            ConnAuthSsl => "Connections and Authentication / SSL",
            ResourcesMem => "Resource Usage / Memory",
            ResourcesDisk => "Resource Usage / Disk",
            ResourcesKernel => "Resource Usage / Kernel Resources",
            ResourcesVacuumDelay => "Resource Usage / Cost-Based Vacuum Delay",
            ResourcesBgwriter => "Resource Usage / Background Writer",
            ResourcesAsynchronous => "Resource Usage / Asynchronous Behavior",
            WalSettings => "Write-Ahead Log / Settings",
            WalCheckpoints => "Write-Ahead Log / Checkpoints",
            WalArchiving => "Write-Ahead Log / Archiving",
            WalRecovery => "Write-Ahead Log / Recovery",
            WalArchiveRecovery => "Write-Ahead Log / Archive Recovery",
            WalRecoveryTarget => "Write-Ahead Log / Recovery Target",
            ReplicationSending => "Replication / Sending Servers",
            ReplicationPrimary => "Replication / Primary Server",
            ReplicationStandby => "Replication / Standby Servers",
            ReplicationSubscribers => "Replication / Subscribers",
            QueryTuningMethod => "Query Tuning / Planner Method Configuration",
            QueryTuningCost => "Query Tuning / Planner Cost Constants",
            QueryTuningGeqo => "Query Tuning / Genetic Query Optimizer",
            QueryTuningOther => "Query Tuning / Other Planner Options",
            LoggingWhere => "Reporting and Logging / Where to Log",
            LoggingWhen => "Reporting and Logging / When to Log",
            LoggingWhat => "Reporting and Logging / What to Log",
            ProcessTitle => "Reporting and Logging / Process Title",
            StatsMonitoring => "Statistics / Monitoring",
            StatsCumulative => "Statistics / Cumulative Query and Index Statistics",
            Autovacuum => "Autovacuum",
            ClientConnStatement => "Client Connection Defaults / Statement Behavior",
            ClientConnLocale => "Client Connection Defaults / Locale and Formatting",
            ClientConnPreload => "Client Connection Defaults / Shared Library Preloading",
            ClientConnOther => "Client Connection Defaults / Other Defaults",
            LockManagement => "Lock Management",
            CompatPrevious => "Version and Platform Compatibility / Previous PostgreSQL Versions",
            CompatClients => "Version and Platform Compatibility / Other Platforms and Clients",
            ErrorHandling => "Error Handling",
            PresetOptions => "Preset Options",
            CustomOptions => "Customized Options",
            DeveloperOptions => "Developer Options",
        }
    }
}

/// Flag bits of a setting (PostgreSQL's `GUC_*` flags that sluice uses).
pub mod flags {
    /// Sent to the client in a ParameterStatus message whenever it changes.
    pub const REPORT: u32 = 1 << 0;
    /// Not listed by `SHOW ALL` or `pg_settings`.
    pub const NO_SHOW_ALL: u32 = 1 << 1;
    /// Left alone by `RESET ALL`.
    pub const NO_RESET_ALL: u32 = 1 << 2;
    /// Not in `postgresql.conf.sample`.
    pub const NOT_IN_SAMPLE: u32 = 1 << 3;
    /// May not appear in a configuration file.
    pub const DISALLOW_IN_FILE: u32 = 1 << 4;
    /// May not be set by `ALTER SYSTEM`.
    pub const DISALLOW_IN_AUTO_FILE: u32 = 1 << 5;
    /// Only superusers may see the value.
    pub const SUPERUSER_ONLY: u32 = 1 << 6;
    /// Shown by `EXPLAIN (SETTINGS)` when it differs from the boot value.
    pub const EXPLAIN: u32 = 1 << 7;
    /// Computed at startup rather than configured (`pg_settings_get_flags`).
    pub const RUNTIME_COMPUTED: u32 = 1 << 8;
    /// `SET x = a, b` is allowed: the value is a list.
    pub const LIST_INPUT: u32 = 1 << 9;
    /// List elements are identifiers and are double-quoted when flattened.
    pub const LIST_QUOTE: u32 = 1 << 10;
    /// The value is an identifier: truncated to 63 bytes.
    pub const IS_NAME: u32 = 1 << 11;
    /// A placeholder for a custom (`prefix.name`) setting.
    pub const CUSTOM_PLACEHOLDER: u32 = 1 << 12;
}

/// One value of an enum setting, as PostgreSQL's `config_enum_entry`.
#[derive(Clone, Copy, Debug)]
pub struct EnumOption {
    /// What the user may type (compared case-insensitively).
    pub name: &'static str,
    /// The value it stands for, as `SHOW` prints it (`"on"` for the alias `"true"`).
    pub canonical: &'static str,
    /// Accepted but not listed in `enumvals` or in the error hint.
    pub hidden: bool,
}

/// A setting's type with its boot value and limits.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `on`/`off`.
    Bool {
        /// Value before any configuration.
        boot: bool,
    },
    /// A 32-bit integer, optionally in a unit.
    Int {
        /// Value before any configuration, in the base unit.
        boot: i32,
        /// Smallest accepted value.
        min: i32,
        /// Largest accepted value.
        max: i32,
    },
    /// A double, optionally in a unit.
    Real {
        /// Value before any configuration, in the base unit.
        boot: f64,
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// Text; `None` is PostgreSQL's NULL boot value (shown as an empty string).
    String {
        /// Value before any configuration.
        boot: Option<&'static str>,
    },
    /// One of a fixed set of words.
    Enum {
        /// Canonical name of the value before any configuration.
        boot: &'static str,
        /// Accepted words, listed ones first in PostgreSQL's order.
        options: &'static [EnumOption],
    },
}

/// A registered setting: static description, no current value.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Canonical name, as `SHOW` and `pg_settings` print it (`DateStyle`).
    pub name: &'static str,
    /// When it may change.
    pub context: Context,
    /// Where `pg_settings` lists it.
    pub category: Category,
    /// One-line description (`pg_settings.short_desc`, `SHOW ALL`).
    pub short_desc: &'static str,
    /// Longer description, if PostgreSQL has one.
    pub extra_desc: Option<&'static str>,
    /// [`flags`] bits.
    pub flags: u32,
    /// Type, boot value, limits.
    pub kind: Kind,
    /// Unit of integer and real values (their base unit).
    pub unit: Option<Unit>,
    /// Validates (and may canonicalize) a parsed value.
    pub check: Option<CheckHook>,
    /// Replaces the default display of the value.
    pub show: Option<ShowHook>,
}

impl Setting {
    /// Whether the setting has flag `flag` (one of [`flags`]).
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    /// The `pg_settings.vartype` name.
    pub fn vartype(&self) -> &'static str {
        match self.kind {
            Kind::Bool { .. } => "bool",
            Kind::Int { .. } => "integer",
            Kind::Real { .. } => "real",
            Kind::String { .. } => "string",
            Kind::Enum { .. } => "enum",
        }
    }

    /// The listed (non-hidden) words of an enum setting; empty for other types.
    pub fn enum_values(&self) -> impl Iterator<Item = &'static str> {
        let options: &'static [EnumOption] = match self.kind {
            Kind::Enum { options, .. } => options,
            _ => &[],
        };
        options.iter().filter(|o| !o.hidden).map(|o| o.name)
    }
}

/// The placeholder definition shared by all custom (`prefix.name`) settings;
/// their names live with their values.
pub(crate) static PLACEHOLDER: Setting = string("", Context::User, Category::CustomOptions, None)
    .flags(flags::NO_SHOW_ALL | flags::NOT_IN_SAMPLE | flags::CUSTOM_PLACEHOLDER)
    .describe("GUC placeholder variable");

/// Obsolete names PostgreSQL still accepts, and the settings they now mean.
const OLD_NAMES: &[(&str, &str)] =
    &[("sort_mem", "work_mem"), ("vacuum_mem", "maintenance_work_mem")];

/// All registered settings, in registry order (the index is a [`SettingId`]).
pub fn all() -> &'static [Setting] {
    &table().settings
}

/// A registered setting's position in [`all`]; cheap to copy and compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SettingId(pub(crate) u16);

impl SettingId {
    /// The setting's static description.
    pub fn setting(self) -> &'static Setting {
        &all()[self.index()]
    }

    /// Position in [`all`].
    pub(crate) fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The id of position `index` in [`all`].
    fn from_index(index: usize) -> SettingId {
        SettingId(u16::try_from(index).expect("fewer than 65536 settings"))
    }
}

/// All registered settings in name order, ignoring case (`SHOW ALL` order).
pub fn sorted() -> &'static [SettingId] {
    static SORTED: OnceLock<Vec<SettingId>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut ids: Vec<SettingId> = (0..all().len()).map(SettingId::from_index).collect();
        ids.sort_by_key(|id| id.setting().name.to_ascii_lowercase());
        ids
    })
}

/// lookup -- find a registered setting by name, ignoring ASCII case, and
/// accepting PostgreSQL's obsolete aliases (`sort_mem`).
pub fn lookup(name: &str) -> Option<SettingId> {
    let table = table();
    let found = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        table.by_name.get(name.to_ascii_lowercase().as_str()).copied()
    } else {
        table.by_name.get(name).copied()
    };
    found.or_else(|| {
        OLD_NAMES
            .iter()
            .find(|(old, _)| old.eq_ignore_ascii_case(name))
            .and_then(|(_, new)| lookup(new))
    })
}

/// The settings and a lowercase-name index over them.
struct Table {
    /// Every file's entries, concatenated.
    settings: Vec<Setting>,
    /// Lowercase name -> position.
    by_name: HashMap<String, SettingId>,
}

/// table -- the registry, assembled from the category files on first use.
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let parts: [&[Setting]; 14] = [
            file_locations::SETTINGS,
            connections::SETTINGS,
            resources::SETTINGS,
            wal::SETTINGS,
            replication::SETTINGS,
            planner::SETTINGS,
            logging::SETTINGS,
            statistics::SETTINGS,
            autovacuum::SETTINGS,
            client::SETTINGS,
            locks::SETTINGS,
            compat::SETTINGS,
            preset::SETTINGS,
            developer::SETTINGS,
        ];
        let settings: Vec<Setting> = parts.concat();
        let by_name = settings
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.to_ascii_lowercase(), SettingId::from_index(i)))
            .collect();
        Table { settings, by_name }
    })
}

// Constructors for the category files: each starts an entry with the fields
// every setting has; the builder methods below add the optional ones.

/// A boolean setting.
pub(crate) const fn boolean(
    name: &'static str,
    context: Context,
    category: Category,
    boot: bool,
) -> Setting {
    new(name, context, category, Kind::Bool { boot })
}

/// An integer setting with its range.
pub(crate) const fn int(
    name: &'static str,
    context: Context,
    category: Category,
    boot: i32,
    min: i32,
    max: i32,
) -> Setting {
    new(name, context, category, Kind::Int { boot, min, max })
}

/// A real (double) setting with its range.
pub(crate) const fn real(
    name: &'static str,
    context: Context,
    category: Category,
    boot: f64,
    min: f64,
    max: f64,
) -> Setting {
    new(name, context, category, Kind::Real { boot, min, max })
}

/// A string setting; `boot` None is PostgreSQL's NULL.
pub(crate) const fn string(
    name: &'static str,
    context: Context,
    category: Category,
    boot: Option<&'static str>,
) -> Setting {
    new(name, context, category, Kind::String { boot })
}

/// An enum setting; `boot` must be the canonical name of one of `options`.
pub(crate) const fn enumerated(
    name: &'static str,
    context: Context,
    category: Category,
    boot: &'static str,
    options: &'static [EnumOption],
) -> Setting {
    new(name, context, category, Kind::Enum { boot, options })
}

/// new -- an entry with no unit, flags, hooks or description yet.
const fn new(name: &'static str, context: Context, category: Category, kind: Kind) -> Setting {
    Setting {
        name,
        context,
        category,
        short_desc: "",
        extra_desc: None,
        flags: 0,
        kind,
        unit: None,
        check: None,
        show: None,
    }
}

impl Setting {
    /// Sets the base unit of an integer or real setting.
    pub(crate) const fn unit(mut self, unit: Unit) -> Setting {
        self.unit = Some(unit);
        self
    }

    /// Sets the [`flags`] bits.
    pub(crate) const fn flags(mut self, bits: u32) -> Setting {
        self.flags = bits;
        self
    }

    /// Sets the one-line description.
    pub(crate) const fn describe(mut self, text: &'static str) -> Setting {
        self.short_desc = text;
        self
    }

    /// Sets the longer description.
    pub(crate) const fn extra(mut self, text: &'static str) -> Setting {
        self.extra_desc = Some(text);
        self
    }

    /// Installs a check hook.
    pub(crate) const fn check(mut self, hook: CheckHook) -> Setting {
        self.check = Some(hook);
        self
    }

    /// Installs a show hook.
    pub(crate) const fn show(mut self, hook: ShowHook) -> Setting {
        self.show = Some(hook);
        self
    }
}

#[cfg(test)]
mod tests;
