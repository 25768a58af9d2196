//! One setting's state in one session, with PostgreSQL's transactional
//! stack (the `GucStack` of `guc.c`; see PostgreSQL's
//! `src/backend/utils/misc/README` for the original discussion).
//!
//! # Three values and a stack
//!
//! Each setting has a current value, a reset value (what `RESET` goes back
//! to: the server-wide or connection-start value) and a stack of saved
//! values, one entry per transaction nesting level that changed it. Level 1
//! is the top transaction, each savepoint adds one, and a function with
//! `SET` clauses adds one for its call.
//!
//! The first change at a level pushes the value from before the change
//! (`prior`); the entry's state records what kind of change it was:
//!
//! ```text
//!   state      made by                 at commit of this level      at abort
//!   SET        SET                     keep the current value       prior
//!   LOCAL      SET LOCAL               prior (top level) / merge    prior
//!   SET_LOCAL  SET then SET LOCAL      masked = the SET value       prior
//!   SAVE       function SET clause     prior                        prior
//! ```
//!
//! At the end of a subtransaction that commits, its entry merges into the
//! enclosing level's (a SET there becomes a SET of the parent; a SET LOCAL
//! stays local to the parent transaction), or simply moves down a level if
//! the parent had no entry. So:
//!
//! ```text
//!   BEGIN; SET work_mem='1MB'; SAVEPOINT a; SET work_mem='2MB';
//!   ROLLBACK TO a;   -- 1MB (the level-2 entry's prior)
//!   SET LOCAL work_mem='3MB'; COMMIT;   -- 1MB (SET_LOCAL: the masked SET value)
//! ```
//!
//! Outside any transaction (level 0) changes are not stacked at all.
//!
//! # Server-wide values
//!
//! Values from the server-wide layer (boot, configuration file, command
//! line) can change under a session when the configuration is reloaded.
//! [`Var::follow_server`] replaces every one of them this setting holds — the
//! current value, the reset value, and stacked priors — while values the
//! session chose itself (startup packet, SET) stay.

use std::sync::Arc;

use crate::registry::Setting;
use crate::source::Source;
use crate::value::Value;

/// A value and its origin.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sourced {
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub source: Source,
}

/// How a change is scoped (PostgreSQL's `GucAction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `SET`: lasts for the session (undone if the transaction aborts).
    Set,
    /// `SET LOCAL`: lasts until the end of the transaction.
    Local,
    /// A function's `SET` clause: lasts until the nesting level is popped.
    Save,
}

/// What a stack entry remembers about the change at its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StackState {
    /// Made by a function's SET clause.
    Save,
    /// Made by SET.
    Set,
    /// Made by SET LOCAL.
    Local,
    /// SET, then SET LOCAL at the same level.
    SetLocal,
}

/// The saved state of one nesting level.
#[derive(Clone, Debug)]
struct StackEntry {
    /// The nesting level that made the change.
    level: u32,
    /// The kind of change.
    state: StackState,
    /// The value before the first change at this level.
    prior: Sourced,
    /// For `SetLocal`: the value SET gave, to restore at commit.
    masked: Option<Value>,
}

/// One setting in one session.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    /// The registry entry (the shared placeholder for custom settings).
    pub def: &'static Setting,
    /// The name of a custom setting, as first given.
    pub custom_name: Option<Box<str>>,
    /// The value in force.
    pub cur: Sourced,
    /// What RESET restores.
    pub reset: Sourced,
    /// Saved values, innermost level last.
    stack: Vec<StackEntry>,
    /// File and line of the configuration line that set the server-wide value.
    pub sourcefile: Option<(Arc<str>, u32)>,
    /// The value last sent to the client in a ParameterStatus message.
    pub last_reported: Option<String>,
}

impl Var {
    /// A setting whose current and reset values are `value`.
    pub fn new(def: &'static Setting, custom_name: Option<Box<str>>, value: Sourced) -> Var {
        Var {
            def,
            custom_name,
            cur: value.clone(),
            reset: value,
            stack: Vec::new(),
            sourcefile: None,
            last_reported: None,
        }
    }

    /// The setting's name: canonical, or as first given for custom settings.
    pub fn name(&self) -> &str {
        self.custom_name.as_deref().unwrap_or(self.def.name)
    }

    /// Whether a transaction level has saved this setting.
    pub fn is_stacked(&self) -> bool {
        !self.stack.is_empty()
    }

    /// assign -- PostgreSQL's core of `set_config_option` once the value is
    /// known: with `make_default` (a connection-start or server-wide source)
    /// also update the reset value and stacked priors that come from no higher
    /// source; with `change` install `new` as the current value, saving the
    /// old one for the transaction at `level` first.
    pub fn assign(
        &mut self,
        new: Sourced,
        change: bool,
        make_default: bool,
        action: Action,
        level: u32,
    ) {
        if change {
            if !make_default {
                self.push_old_value(action, level);
            }
            self.cur = new.clone();
        }
        if make_default {
            if self.reset.source <= new.source {
                self.reset = new.clone();
            }
            for entry in &mut self.stack {
                if entry.prior.source <= new.source {
                    entry.prior = new.clone();
                }
            }
        }
    }

    /// push_old_value -- save the current value before a change by `action`
    /// at nesting `level`, or adjust the entry this level already has.
    fn push_old_value(&mut self, action: Action, level: u32) {
        if level == 0 {
            return;
        }
        if let Some(top) = self.stack.last_mut().filter(|top| top.level >= level) {
            match action {
                Action::Set => {
                    // SET overrides whatever this level did before.
                    top.masked = None;
                    top.state = StackState::Set;
                }
                Action::Local if top.state == StackState::Set => {
                    top.masked = Some(self.cur.value.clone());
                    top.state = StackState::SetLocal;
                }
                Action::Local | Action::Save => {}
            }
            return;
        }
        let state = match action {
            Action::Set => StackState::Set,
            Action::Local => StackState::Local,
            Action::Save => StackState::Save,
        };
        self.stack.push(StackEntry { level, state, prior: self.cur.clone(), masked: None });
    }

    /// end_level -- PostgreSQL's `AtEOXact_GUC` for this setting: pop or
    /// merge every entry of `level` and above, at commit or abort.
    pub fn end_level(&mut self, commit: bool, level: u32) {
        while self.stack.last().is_some_and(|e| e.level >= level) {
            let entry = self.stack.pop().expect("checked non-empty");
            let restore = if !commit || entry.state == StackState::Save {
                Some(entry.prior)
            } else if entry.level == 1 {
                match entry.state {
                    StackState::SetLocal => Some(Sourced {
                        value: entry.masked.expect("SET LOCAL after SET"),
                        source: Source::Session,
                    }),
                    StackState::Local => Some(entry.prior),
                    StackState::Set | StackState::Save => None,
                }
            } else {
                self.commit_into_parent(entry);
                None
            };
            if let Some(value) = restore {
                self.cur = value;
            }
        }
    }

    /// commit_into_parent -- a committed subtransaction's entry: merge it into
    /// the enclosing level's entry, or move it down a level if there is none.
    fn commit_into_parent(&mut self, mut entry: StackEntry) {
        let parent_level = entry.level - 1;
        let Some(prev) = self.stack.last_mut().filter(|prev| prev.level == parent_level) else {
            entry.level = parent_level;
            self.stack.push(entry);
            return;
        };
        match entry.state {
            StackState::Set => {
                prev.masked = None;
                prev.state = StackState::Set;
            }
            StackState::Local if prev.state == StackState::Set => {
                // The parent's SET value is what LOCAL hid: restore it at commit.
                prev.masked = Some(entry.prior.value);
                prev.state = StackState::SetLocal;
            }
            StackState::Local => {}
            StackState::SetLocal => {
                prev.masked = entry.masked;
                prev.state = StackState::SetLocal;
            }
            StackState::Save => unreachable!("SAVE entries are restored, never merged"),
        }
    }

    /// follow_server -- the server-wide value changed (a reload): replace it
    /// wherever this session still holds the server-wide value.
    pub fn follow_server(&mut self, new: &Sourced, sourcefile: Option<(Arc<str>, u32)>) {
        if self.cur.source.is_server_wide() {
            self.cur = new.clone();
        }
        if self.reset.source.is_server_wide() {
            self.reset = new.clone();
        }
        for entry in &mut self.stack {
            if entry.prior.source.is_server_wide() {
                entry.prior = new.clone();
            }
        }
        self.sourcefile = sourcefile;
    }
}
