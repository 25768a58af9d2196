//! [`SessionSettings`]: one session's settings, layered on the server's.
//!
//! # Layers and precedence
//!
//! A session starts as a copy of [`GlobalConfig`]'s values (boot, computed
//! defaults, configuration file, command line). On top come, in rising
//! priority, `ALTER ROLE/DATABASE ... SET` values and the startup packet's
//! options (applied by the caller with [`SessionSettings::set_option`] and
//! [`Source::Database`], [`Source::Client`]...), then `SET`. Each setting
//! keeps the [`Source`] of its value; a value is only replaced from an equal
//! or higher source, and `RESET` returns to the connection-start value.
//!
//! # Transactions
//!
//! PostgreSQL runs every statement, even a lone `SET`, inside a transaction;
//! the caller brackets each one with [`SessionSettings::start_transaction`]
//! and [`SessionSettings::end_transaction`], and savepoints with
//! [`SessionSettings::push_nest_level`] / [`SessionSettings::pop_nest_level`].
//! A SET in a transaction that aborts is undone, SET LOCAL lasts until the
//! transaction ends; the stacking rules are in `var.rs`.
//!
//! # Threads
//!
//! A `SessionSettings` belongs to its session's thread and needs no locks of
//! its own. It holds an `Arc` of the server's [`GlobalConfig`] and reads it
//! (under its read lock) only when created, in [`SessionSettings::sync`]
//! after a reload, and for `pg_settings`.
//!
//! What the SQL layer checks itself before calling in: `SET TRANSACTION
//! ISOLATION LEVEL` only before the first query (and the WARNING for SET
//! LOCAL outside a transaction block), and settings whose validity depends
//! on the catalogs (`role`, `session_authorization`, `default_tablespace`).

pub(crate) mod var;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::error::{GucError, Result};
use crate::global::{check_custom_name, GlobalConfig};
use crate::hooks::HookContext;
use crate::registry::{self, flags, Context, SettingId, PLACEHOLDER};
use crate::settings::Settings;
use crate::source::Source;
use crate::validate::{check_context, parse_value, Permit};
use crate::value::Value;
use crate::views::{self, SettingRow, ShowAllRow};
pub use var::Action;
use var::{Sourced, Var};

/// A transaction nesting level: 1 is the top transaction, each savepoint or
/// function-with-SET call one more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestLevel(u32);

/// One session's settings.
#[derive(Debug)]
pub struct SessionSettings {
    /// The server-wide layer this session follows.
    global: Arc<GlobalConfig>,
    /// Registry settings in registry order, then custom ones.
    vars: Vec<Var>,
    /// Lowercase custom name -> position in `vars`.
    custom: HashMap<String, usize>,
    /// Positions of settings with a non-empty stack.
    stacked: Vec<usize>,
    /// The current transaction nesting level (0: none).
    nest_level: u32,
    /// Whether the session user is a superuser (decides SET privileges).
    superuser: bool,
    /// The server-wide generation last synced.
    seen_generation: u64,
    /// A reported setting may have changed since the last `take_reports`.
    reports_due: bool,
    /// Counts changes of values (see [`SessionSettings::changes`]).
    changes: u64,
}

impl SessionSettings {
    /// new -- a session's settings for `user`, starting from the server's
    /// current values; `is_superuser` and `session_authorization` are set.
    pub fn new(global: Arc<GlobalConfig>, user: &str, superuser: bool) -> SessionSettings {
        let (vars, custom, seen_generation) = {
            let state = global.state();
            let mut custom = HashMap::new();
            let vars: Vec<Var> = state
                .vars
                .iter()
                .enumerate()
                .map(|(index, server)| {
                    if let Some(name) = &server.custom_name {
                        custom.insert(name.to_ascii_lowercase(), index);
                    }
                    let mut var =
                        Var::new(server.def, server.custom_name.clone(), server.value.clone());
                    var.sourcefile = server.sourcefile.clone();
                    var
                })
                .collect();
            (vars, custom, state.generation)
        };
        let mut session = SessionSettings {
            global,
            vars,
            custom,
            stacked: Vec::new(),
            nest_level: 0,
            superuser,
            seen_generation,
            reports_due: true,
            changes: 0,
        };
        session.set_internal("is_superuser", if superuser { "on" } else { "off" });
        session.set_internal("session_authorization", user);
        session
    }

    /// set_option -- PostgreSQL's `set_config_option` for a session: set
    /// `name` to `value` (None: to its reset value, i.e. RESET) from
    /// `source`, scoped by `action`. A custom name (`app.user_id`) creates
    /// the setting. Returns false if a higher source keeps its value.
    ///
    /// `source` must be a session-level one (database/user settings, the
    /// startup packet, SET); the privilege checks use the session's
    /// superuser flag.
    pub fn set_option(
        &mut self,
        name: &str,
        value: Option<&str>,
        source: Source,
        action: Action,
    ) -> Result<bool> {
        assert!(!source.is_server_wide(), "server-wide sources belong to GlobalConfig");
        let caller = match source {
            Source::Client if self.superuser => Context::SuBackend,
            Source::Client => Context::Backend,
            Source::Override => Context::Internal,
            _ if self.superuser => Context::Superuser,
            _ => Context::User,
        };
        let index = self.find_or_create(name)?;
        let level = self.nest_level;
        let var = &mut self.vars[index];
        let Permit::Go = check_context(var.def, var.name(), caller, source)? else {
            unreachable!("sessions never set with sighup context")
        };
        let make_default = source <= Source::Override && value.is_some();
        let change = var.cur.source <= source;
        if !change && !make_default {
            return Ok(false);
        }
        let new = match value {
            Some(text) => {
                let ctx = HookContext { current: &var.cur.value, reset: &var.reset.value };
                Sourced { value: parse_value(var.def, var.name(), text, &ctx)?, source }
            }
            None => var.reset.clone(),
        };
        self.reports_due |= change && var.def.has(flags::REPORT);
        var.assign(new, change, make_default, action, level);
        self.changes += 1;
        self.note_stacked(index);
        Ok(change)
    }

    /// set -- `SET name = value`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        self.set_option(name, Some(value), Source::Session, Action::Set).map(drop)
    }

    /// set_local -- `SET LOCAL name = value`: until the transaction ends.
    pub fn set_local(&mut self, name: &str, value: &str) -> Result<()> {
        self.set_option(name, Some(value), Source::Session, Action::Local).map(drop)
    }

    /// reset -- `RESET name` (and `SET name TO DEFAULT`).
    pub fn reset(&mut self, name: &str) -> Result<()> {
        self.set_option(name, None, Source::Session, Action::Set).map(drop)
    }

    /// set_config -- the `set_config(name, value, is_local)` function:
    /// SET, SET LOCAL, or RESET for a NULL value; returns the new value as
    /// `current_setting` would.
    pub fn set_config(
        &mut self,
        name: &str,
        value: Option<&str>,
        is_local: bool,
    ) -> Result<String> {
        let action = if is_local { Action::Local } else { Action::Set };
        self.set_option(name, value, Source::Session, action)?;
        Ok(self.show(name)?.1)
    }

    /// reset_all -- `RESET ALL`: every setting a user can SET, that was SET
    /// and is not excluded (`transaction_isolation`...), returns to its reset
    /// value. Transactional, like SET.
    pub fn reset_all(&mut self) {
        self.changes += 1;
        let level = self.nest_level;
        for index in 0..self.vars.len() {
            let var = &mut self.vars[index];
            let resettable = matches!(var.def.context, Context::Superuser | Context::User)
                && !var.def.has(flags::NO_RESET_ALL)
                && var.cur.source > Source::Override;
            if resettable {
                self.reports_due |= var.def.has(flags::REPORT);
                let reset = var.reset.clone();
                var.assign(reset, true, false, Action::Set, level);
                self.note_stacked(index);
            }
        }
    }

    /// set_internal -- a value only the server sets (`is_superuser`,
    /// `in_hot_standby`, `session_authorization` after SET SESSION
    /// AUTHORIZATION): bypasses the context checks, survives RESET. An
    /// invalid name or value is a bug in sluice and panics.
    pub fn set_internal(&mut self, name: &str, value: &str) {
        self.set_option(name, Some(value), Source::Override, Action::Set)
            .unwrap_or_else(|e| panic!("internal setting {name} = {value}: {e}"));
    }

    /// show -- `SHOW name`: the canonical name (the column title) and the
    /// value with units.
    pub fn show(&self, name: &str) -> Result<(String, String)> {
        let var = &self.vars[self.find(name)?];
        if !self.visible(var) {
            return Err(GucError::CannotExamine { name: name.to_string() });
        }
        Ok((var.name().to_string(), self.display(var, true)))
    }

    /// current_setting -- `current_setting(name, missing_ok)`: as SHOW, or
    /// None for an unknown name when `missing_ok`.
    pub fn current_setting(&self, name: &str, missing_ok: bool) -> Result<Option<String>> {
        match self.show(name) {
            Err(GucError::UnrecognizedParameter { .. }) if missing_ok => Ok(None),
            other => other.map(|(_, value)| Some(value)),
        }
    }

    /// show_all -- `SHOW ALL`: name, value and description of every listed
    /// setting, sorted by name.
    pub fn show_all(&self) -> Vec<ShowAllRow> {
        self.listed()
            .map(|(_, var)| ShowAllRow {
                name: var.def.name,
                setting: self.display(var, true),
                description: var.def.short_desc,
            })
            .collect()
    }

    /// pg_settings -- the rows of the `pg_settings` view, sorted by name.
    pub fn pg_settings(&self) -> Vec<SettingRow> {
        let state = self.global.state();
        self.listed()
            .map(|(id, var)| {
                let pending_restart = state.vars[id.index()].pending_restart;
                views::setting_row(
                    var,
                    self.global.boot(id),
                    self.display(var, false),
                    pending_restart,
                )
            })
            .collect()
    }

    /// explain_settings -- what `EXPLAIN (SETTINGS)` lists: planner-related
    /// settings whose value differs from the boot value, by name.
    pub fn explain_settings(&self) -> Vec<(&'static str, String)> {
        self.listed()
            .filter(|(id, var)| {
                var.def.has(flags::EXPLAIN) && var.cur.value != *self.global.boot(*id)
            })
            .map(|(_, var)| (var.def.name, self.display(var, true)))
            .collect()
    }

    /// start_transaction -- enter nesting level 1; the transaction's
    /// characteristics start from their defaults (read-only during recovery).
    pub fn start_transaction(&mut self) {
        debug_assert_eq!(self.nest_level, 0, "transaction already started");
        self.nest_level = 1;
        let in_recovery = self.get_bool("in_hot_standby");
        for (setting, default) in [
            ("transaction_isolation", "default_transaction_isolation"),
            ("transaction_read_only", "default_transaction_read_only"),
            ("transaction_deferrable", "default_transaction_deferrable"),
        ] {
            let mut value = self.value(default);
            if setting == "transaction_read_only" && in_recovery {
                value = Value::Bool(true);
            }
            let index = registry::lookup(setting).expect("registered").index();
            self.vars[index].cur.value = value;
        }
    }

    /// end_transaction -- leave the transaction: at commit SET values stay
    /// and SET LOCAL values revert; at abort everything set in it reverts.
    pub fn end_transaction(&mut self, commit: bool) {
        self.pop_nest_level(NestLevel(1), commit);
    }

    /// push_nest_level -- enter a savepoint or a function with SET clauses.
    pub fn push_nest_level(&mut self) -> NestLevel {
        self.nest_level += 1;
        NestLevel(self.nest_level)
    }

    /// pop_nest_level -- leave `level` (and anything above it): release
    /// (commit) merges its changes into the enclosing level, rollback undoes
    /// them; SAVE changes (function SET clauses) are undone either way.
    pub fn pop_nest_level(&mut self, level: NestLevel, commit: bool) {
        if !self.stacked.is_empty() {
            self.changes += 1;
        }
        self.reports_due |=
            self.stacked.iter().any(|&index| self.vars[index].def.has(flags::REPORT));
        let vars = &mut self.vars;
        self.stacked.retain(|&index| {
            vars[index].end_level(commit, level.0);
            vars[index].is_stacked()
        });
        self.nest_level = level.0 - 1;
    }

    /// take_reports -- the `GUC_REPORT` settings to send in ParameterStatus
    /// messages: all of them on the first call, afterwards those whose value
    /// changed since they were last sent (PostgreSQL sends them before
    /// ReadyForQuery).
    pub fn take_reports(&mut self) -> Vec<(String, String)> {
        let mut reports = Vec::new();
        if !std::mem::take(&mut self.reports_due) {
            return reports;
        }
        for &id in reported_settings() {
            let text = self.display(&self.vars[id.index()], false);
            let var = &mut self.vars[id.index()];
            if var.last_reported.as_deref() != Some(text.as_str()) {
                reports.push((var.def.name.to_string(), text.clone()));
                var.last_reported = Some(text);
            }
        }
        reports
    }

    /// sync -- take over server-wide changes made by a reload since the last
    /// call (PostgreSQL's backends do this when idle after SIGHUP). Values
    /// the session set itself stay; settings that only apply at connection
    /// start keep their old values. Returns whether anything was new.
    pub fn sync(&mut self) -> bool {
        if self.global.generation() == self.seen_generation {
            return false;
        }
        let global = Arc::clone(&self.global);
        let state = global.state();
        for (index, server) in state.vars.iter().enumerate() {
            let connection_start = matches!(
                server.def.context,
                Context::Internal | Context::Postmaster | Context::SuBackend | Context::Backend
            );
            if server.changed_at <= self.seen_generation || connection_start {
                continue;
            }
            let local = match &server.custom_name {
                None => index,
                Some(name) => {
                    self.find_or_create(name).expect("server-wide custom names are valid")
                }
            };
            self.vars[local].follow_server(&server.value, server.sourcefile.clone());
            self.reports_due |= server.def.has(flags::REPORT);
        }
        self.seen_generation = state.generation;
        self.changes += 1;
        true
    }

    /// changes -- a number that moves whenever a setting's value may have
    /// changed (SET, RESET, a transaction or savepoint end reverting values,
    /// a reload), so a caller can tell that settings it depended on, such
    /// as the planner's, are as they were. The transaction characteristics
    /// that every transaction start resets (`transaction_isolation`, ...)
    /// do not move it.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// find -- the position of an existing setting (no placeholder is made).
    fn find(&self, name: &str) -> Result<usize> {
        if let Some(id) = registry::lookup(name) {
            return Ok(id.index());
        }
        self.custom
            .get(&name.to_ascii_lowercase())
            .copied()
            .ok_or_else(|| GucError::UnrecognizedParameter { name: name.to_string() })
    }

    /// find_or_create -- the position of `name`, making a placeholder for a
    /// new valid custom name.
    fn find_or_create(&mut self, name: &str) -> Result<usize> {
        if let Ok(index) = self.find(name) {
            return Ok(index);
        }
        check_custom_name(name)?;
        let empty = Sourced { value: Value::boot(&PLACEHOLDER), source: Source::Default };
        self.vars.push(Var::new(&PLACEHOLDER, Some(name.into()), empty));
        self.custom.insert(name.to_ascii_lowercase(), self.vars.len() - 1);
        Ok(self.vars.len() - 1)
    }

    /// Remember that the setting at `index` may now have a stack.
    fn note_stacked(&mut self, index: usize) {
        if self.vars[index].is_stacked() && !self.stacked.contains(&index) {
            self.stacked.push(index);
        }
    }

    /// Whether this session may see the setting's value.
    fn visible(&self, var: &Var) -> bool {
        self.superuser || !var.def.has(flags::SUPERUSER_ONLY)
    }

    /// The settings SHOW ALL and pg_settings list, in name order.
    fn listed(&self) -> impl Iterator<Item = (SettingId, &Var)> {
        registry::sorted()
            .iter()
            .map(|&id| (id, &self.vars[id.index()]))
            .filter(|(_, var)| !var.def.has(flags::NO_SHOW_ALL) && self.visible(var))
    }

    /// display -- the value as SHOW (`use_units`) or pg_settings prints it,
    /// through the setting's show hook if it has one.
    fn display(&self, var: &Var, use_units: bool) -> String {
        match var.def.show {
            Some(hook) => hook(&var.cur.value, self),
            None => var.cur.value.display(var.def.unit, use_units),
        }
    }
}

impl Settings for SessionSettings {
    fn value_of(&self, id: SettingId) -> Value {
        self.vars[id.index()].cur.value.clone()
    }
}

/// The settings with the `REPORT` flag, found once.
fn reported_settings() -> &'static [SettingId] {
    static REPORTED: OnceLock<Vec<SettingId>> = OnceLock::new();
    REPORTED.get_or_init(|| {
        registry::sorted().iter().copied().filter(|id| id.setting().has(flags::REPORT)).collect()
    })
}

#[cfg(test)]
mod tests;
