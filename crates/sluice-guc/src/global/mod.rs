//! [`GlobalConfig`]: the server-wide layer of settings — what PostgreSQL's
//! postmaster holds and every new backend inherits.
//!
//! # What lives here
//!
//! Values from the boot table, from defaults computed at startup, from the
//! configuration files (`postgresql.conf`, its includes, then
//! `postgresql.auto.conf`, which ALTER SYSTEM writes) and from the command
//! line (`-c name=value`), each with its [`Source`]. A higher source wins
//! whatever the order of arrival: a command-line value stays in force when
//! the file changes and is reloaded.
//!
//! # Reload
//!
//! [`GlobalConfig::reload`] (SIGHUP, `pg_reload_conf()`) reads the files
//! again and applies what changed, as PostgreSQL's `ProcessConfigFile` does:
//! a syntax error or an unknown name anywhere means nothing is applied;
//! `sighup` and session-level settings take the new value; `postmaster`
//! settings cannot change while running, so a different value marks them
//! `pending_restart` (and is reported as an error) instead; settings removed
//! from the file return to their defaults. Sessions pick up the new values at
//! their next [`crate::SessionSettings::sync`], keeping anything they SET.
//!
//! # Locking
//!
//! The values are behind one `RwLock`: readers (new sessions, session sync,
//! background threads reading a setting) share it; only startup, reload and
//! the internal setters write. File reading happens before the write lock is
//! taken, under `reload_lock`, so readers never wait for disk. A generation
//! counter, readable without the lock, tells a session whether there is
//! anything new to sync. ALTER SYSTEM serializes on its own `auto_conf_lock`
//! (PostgreSQL's `AutoFileLock`) and does not touch the values at all: its
//! changes take effect at the next reload.

mod alter_system;
mod reload;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

pub use reload::ReloadReport;

use crate::error::{GucError, Result};
use crate::hooks::{HookContext, SERVER_ENCODING};
use crate::registry::{self, Context, Setting, SettingId, PLACEHOLDER};
use crate::session::var::Sourced;
use crate::settings::Settings;
use crate::source::Source;
use crate::validate::{check_context, parse_value, valid_custom_name, Permit};
use crate::value::Value;

/// What the server reports as its version (PostgreSQL-compatible numbers,
/// chosen by the caller: `"15.0"` and `150000`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerIdentity {
    /// `server_version`.
    pub server_version: String,
    /// `server_version_num`.
    pub server_version_num: i32,
}

/// How to start the server-wide configuration.
#[derive(Clone, Debug)]
pub struct ConfigOptions {
    /// The version to report.
    pub identity: ServerIdentity,
    /// The data directory (`-D`); holds `postgresql.auto.conf`.
    pub data_directory: PathBuf,
    /// The main configuration file; `data_directory/postgresql.conf` if None.
    pub config_file: Option<PathBuf>,
    /// The server's own defaults (`port = 5433`...), shown as source "default".
    pub defaults: Vec<(String, String)>,
    /// `-c name=value` options, in order.
    pub command_line: Vec<String>,
}

/// The configuration files of a server.
#[derive(Clone, Debug)]
struct Files {
    /// The data directory (absolute).
    data_dir: PathBuf,
    /// The main configuration file (absolute).
    config_file: PathBuf,
}

/// One setting's server-wide state.
#[derive(Clone, Debug)]
pub(crate) struct ServerVar {
    /// The registry entry (the placeholder for custom settings).
    pub def: &'static Setting,
    /// The name of a custom setting, as first given.
    pub custom_name: Option<Box<str>>,
    /// The value and its source.
    pub value: Sourced,
    /// The configuration line that last set it.
    pub sourcefile: Option<(Arc<str>, u32)>,
    /// A postmaster setting whose file value differs from the running one.
    pub pending_restart: bool,
    /// The generation in which the value last changed.
    pub changed_at: u64,
    /// Present in the configuration file being processed.
    in_file: bool,
}

impl ServerVar {
    /// The setting's name.
    pub fn name(&self) -> &str {
        self.custom_name.as_deref().unwrap_or(self.def.name)
    }
}

/// The values, guarded together.
#[derive(Clone, Debug)]
pub(crate) struct State {
    /// Registry settings in registry order, then custom ones.
    pub vars: Vec<ServerVar>,
    /// Lowercase custom name -> position in `vars`.
    pub custom: HashMap<String, usize>,
    /// Bumped by every change after startup.
    pub generation: u64,
}

/// The server-wide settings, shared by all sessions and background threads.
#[derive(Debug)]
pub struct GlobalConfig {
    /// Boot values by registry position (the version numbers come from the caller).
    boot: Box<[Value]>,
    /// The configuration files, if the server has any.
    files: Option<Files>,
    /// The server's own defaults, re-applied when the file stops overriding them.
    defaults: Vec<(String, String)>,
    /// The values.
    state: RwLock<State>,
    /// `state.generation`, readable without the lock.
    generation: AtomicU64,
    /// Serializes reloads (file reading happens outside the write lock).
    reload_lock: Mutex<()>,
    /// Serializes ALTER SYSTEM.
    auto_conf_lock: Mutex<()>,
}

/// Startup defaults every sluice server has (PostgreSQL computes most of
/// these at startup too): the server encoding is always UTF8, checksums are
/// always on, messages are untranslated.
const BUILTIN_DEFAULTS: &[(&str, &str)] = &[
    ("server_encoding", SERVER_ENCODING),
    ("client_encoding", SERVER_ENCODING),
    ("timezone_abbreviations", "Default"),
    ("max_stack_depth", "2048"),
    ("data_checksums", "on"),
    ("lc_messages", "C"),
];

/// Transaction characteristics are fixed at the server level so that only a
/// session's SET (or SET TRANSACTION) can change them.
const OVERRIDES: &[(&str, &str)] = &[
    ("transaction_isolation", "read committed"),
    ("transaction_read_only", "off"),
    ("transaction_deferrable", "off"),
];

impl GlobalConfig {
    /// new -- boot values and startup defaults only: no files, no command
    /// line. For tools and tests, and the base of [`GlobalConfig::load`].
    pub fn new(identity: ServerIdentity) -> GlobalConfig {
        let boot = boot_values(&identity);
        let vars = registry::all()
            .iter()
            .zip(boot.iter())
            .map(|(def, value)| ServerVar {
                def,
                custom_name: None,
                value: Sourced { value: value.clone(), source: Source::Default },
                sourcefile: None,
                pending_restart: false,
                changed_at: 0,
                in_file: false,
            })
            .collect();
        let mut state = State { vars, custom: HashMap::new(), generation: 0 };
        for &(name, value) in BUILTIN_DEFAULTS {
            set_fixed(&mut state, &boot, name, value, Source::DynamicDefault);
        }
        for &(name, value) in OVERRIDES {
            set_fixed(&mut state, &boot, name, value, Source::Override);
        }
        choose_wal_buffers(&mut state, &boot);
        GlobalConfig {
            boot,
            files: None,
            defaults: Vec::new(),
            state: RwLock::new(state),
            generation: AtomicU64::new(0),
            reload_lock: Mutex::new(()),
            auto_conf_lock: Mutex::new(()),
        }
    }

    /// load -- server start: defaults, command line, then the configuration
    /// files. Any error in them is fatal, as in PostgreSQL.
    pub fn load(options: ConfigOptions) -> Result<GlobalConfig> {
        let mut config = GlobalConfig::new(options.identity);
        let data_dir = absolute(&options.data_directory);
        let config_file = options
            .config_file
            .map(|f| absolute(&f))
            .unwrap_or_else(|| data_dir.join("postgresql.conf"));
        let locations = [
            ("config_file", config_file.clone()),
            ("data_directory", data_dir.clone()),
            ("hba_file", data_dir.join("pg_hba.conf")),
            ("ident_file", data_dir.join("pg_ident.conf")),
        ];
        config.files = Some(Files { data_dir, config_file });
        config.defaults = options.defaults;
        let mut state = config.state.write();
        for (name, path) in &locations {
            set_fixed(&mut state, &config.boot, name, &path.to_string_lossy(), Source::Override);
        }
        for (name, value) in &config.defaults {
            config.set_server(
                &mut state,
                name,
                Some(value),
                Context::Postmaster,
                Source::DynamicDefault,
                None,
            )?;
        }
        for option in &options.command_line {
            let (name, value) = parse_long_option(option)?;
            config.set_server(
                &mut state,
                &name,
                Some(&value),
                Context::Postmaster,
                Source::CommandLine,
                None,
            )?;
        }
        let parsed = config.read_files(false);
        let report = config.process_files(&mut state, parsed, Context::Postmaster);
        if let Some(error) = report.error {
            return Err(error);
        }
        choose_wal_buffers(&mut state, &config.boot);
        drop(state);
        Ok(config)
    }

    /// The boot value of a registered setting (`pg_settings.boot_val`).
    pub(crate) fn boot(&self, id: SettingId) -> &Value {
        &self.boot[id.index()]
    }

    /// The generation of the values: changes whenever a reload changes one.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Read access to the values, for sessions.
    pub(crate) fn state(&self) -> parking_lot::RwLockReadGuard<'_, State> {
        self.state.read()
    }

    /// set_server -- set a server-wide value from a configuration line, the
    /// command line or a computed default: context and value checks, source
    /// priority, and for postmaster settings after startup, the
    /// pending-restart rule. Returns whether the value changed.
    fn set_server(
        &self,
        state: &mut State,
        name: &str,
        text: Option<&str>,
        caller: Context,
        source: Source,
        location: Option<(Arc<str>, u32)>,
    ) -> Result<bool> {
        let index = find_or_create(state, name)?;
        let generation = state.generation;
        let var = &mut state.vars[index];
        let permit = check_context(var.def, var.name(), caller, source)?;
        let new_value = match text {
            Some(text) => {
                let ctx = HookContext { current: &var.value.value, reset: &var.value.value };
                parse_value(var.def, var.name(), text, &ctx)?
            }
            None => self.boot.get(index).cloned().unwrap_or_else(|| Value::boot(var.def)),
        };
        if permit == Permit::ProhibitChange {
            // PostgreSQL compares with the running value even when a higher
            // source (the command line) set it; so does sluice.
            var.pending_restart = new_value != var.value.value;
            if var.pending_restart {
                return Err(GucError::RequiresRestart { name: var.name().to_string() });
            }
        }
        // The line is remembered even when a higher source keeps its value:
        // pg_settings shows it only while the file's value is in force.
        let moved = location.is_some() && location != var.sourcefile;
        if moved {
            var.sourcefile = location;
        }
        let takes_effect = permit == Permit::Go && var.value.source <= source;
        let changed = takes_effect && var.value.value != new_value;
        if takes_effect && (changed || var.value.source != source) || moved {
            // Sessions follow anything that changed, even only the source.
            var.changed_at = generation;
        }
        if takes_effect {
            var.value = Sourced { value: new_value, source };
        }
        Ok(changed)
    }

    /// The data directory and main configuration file; None without files.
    fn files(&self) -> Option<&Files> {
        self.files.as_ref()
    }
}

impl Settings for GlobalConfig {
    fn value_of(&self, id: SettingId) -> Value {
        self.state.read().vars[id.index()].value.value.clone()
    }
}

/// boot_values -- every registered setting's boot value, with the version
/// numbers the caller chose.
fn boot_values(identity: &ServerIdentity) -> Box<[Value]> {
    registry::all()
        .iter()
        .map(|def| match def.name {
            "server_version" => Value::Str(Arc::from(identity.server_version.as_str())),
            "server_version_num" => Value::Int(identity.server_version_num),
            _ => Value::boot(def),
        })
        .collect()
}

/// set_fixed -- install a startup value chosen by the server itself; a
/// failure is a bug in the tables above.
fn set_fixed(state: &mut State, boot: &[Value], name: &str, text: &str, source: Source) {
    let id =
        registry::lookup(name).unwrap_or_else(|| panic!("built-in default for unknown \"{name}\""));
    let var = &mut state.vars[id.index()];
    let ctx = HookContext { current: &var.value.value, reset: &boot[id.index()] };
    let value = parse_value(var.def, var.name(), text, &ctx)
        .unwrap_or_else(|e| panic!("built-in default {name} = {text}: {e}"));
    var.value = Sourced { value, source };
}

/// find_or_create -- the position of setting `name`, creating a placeholder
/// for a valid custom name (`myapp.user_id`) not seen before.
pub(crate) fn find_or_create(state: &mut State, name: &str) -> Result<usize> {
    if let Some(id) = registry::lookup(name) {
        return Ok(id.index());
    }
    let key = name.to_ascii_lowercase();
    if let Some(&index) = state.custom.get(&key) {
        return Ok(index);
    }
    check_custom_name(name)?;
    state.vars.push(ServerVar {
        def: &PLACEHOLDER,
        custom_name: Some(name.into()),
        value: Sourced { value: Value::boot(&PLACEHOLDER), source: Source::Default },
        sourcefile: None,
        pending_restart: false,
        changed_at: state.generation,
        in_file: false,
    });
    state.custom.insert(key, state.vars.len() - 1);
    Ok(state.vars.len() - 1)
}

/// check_custom_name -- the error for a name that is neither registered nor
/// a valid custom name.
pub(crate) fn check_custom_name(name: &str) -> Result<()> {
    if !name.contains('.') {
        Err(GucError::UnrecognizedParameter { name: name.to_string() })
    } else if !valid_custom_name(name) {
        Err(GucError::InvalidParameterName { name: name.to_string() })
    } else {
        Ok(())
    }
}

/// parse_long_option -- PostgreSQL's `ParseLongOption` for `-c name=value`:
/// dashes in the name become underscores; a missing `=value` is an error.
fn parse_long_option(option: &str) -> Result<(String, String)> {
    match option.split_once('=') {
        Some((name, value)) => Ok((name.replace('-', "_"), value.to_string())),
        None => Err(GucError::OptionRequiresValue { option: option.to_string() }),
    }
}

/// choose_wal_buffers -- `wal_buffers = -1` means 1/32 of `shared_buffers`,
/// between 8 blocks (64kB) and one WAL segment (16MB), as in PostgreSQL.
/// Chosen again after the files are read, in case they set `shared_buffers`.
fn choose_wal_buffers(state: &mut State, boot: &[Value]) {
    let get = |state: &State, name: &str| match state.vars
        [registry::lookup(name).expect("registered").index()]
    .value
    .value
    {
        Value::Int(v) => v,
        ref other => unreachable!("{name} is an integer, not {other:?}"),
    };
    let id = registry::lookup("wal_buffers").expect("registered");
    let chosen_before = state.vars[id.index()].value.source == Source::DynamicDefault;
    if get(state, "wal_buffers") != -1 && !chosen_before {
        return;
    }
    let segment_blocks = get(state, "wal_segment_size") / 8192;
    let blocks = (get(state, "shared_buffers") / 32).clamp(8, segment_blocks.max(8));
    let explicit = state.vars[id.index()].value.source > Source::DynamicDefault;
    let source = if explicit { Source::Override } else { Source::DynamicDefault };
    set_fixed(state, boot, "wal_buffers", &blocks.to_string(), source);
}

/// An absolute form of `path` (relative to the working directory).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests;
