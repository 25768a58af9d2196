//! [`Settings`]: typed reads of current values, for engine code.
//!
//! Both layers implement it: a backend reads its [`crate::SessionSettings`]
//! (`settings.get_bool("enable_seqscan")`), background threads such as the
//! checkpointer read the server-wide [`crate::GlobalConfig`]
//! (`config.get_duration("checkpoint_timeout")`).
//!
//! # Misspelt names panic
//!
//! The getters cannot fail for a registered name of the right type, so they
//! return plain values. A name that is not registered, or a getter of the
//! wrong type, is a bug in sluice's own code, not a user error: the getter
//! panics with the name, and the unit tests that exercise the calling code
//! catch it. User-supplied names go through `SessionSettings::show` and
//! friends, which return errors instead.

use std::sync::Arc;
use std::time::Duration;

use crate::registry::{self, SettingId};
use crate::value::Value;

/// Typed access to current setting values.
pub trait Settings {
    /// The current value of a registered setting.
    fn value_of(&self, id: SettingId) -> Value;

    /// The current value of the registered setting `name`; panics if there is
    /// none (see the module documentation).
    fn value(&self, name: &str) -> Value {
        self.value_of(registered(name))
    }

    /// A boolean setting.
    fn get_bool(&self, name: &str) -> bool {
        match self.value(name) {
            Value::Bool(b) => b,
            other => wrong_type(name, "bool", &other),
        }
    }

    /// An integer setting, in its base unit (`work_mem` in kB).
    fn get_int(&self, name: &str) -> i32 {
        match self.value(name) {
            Value::Int(v) => v,
            other => wrong_type(name, "integer", &other),
        }
    }

    /// A real setting, in its base unit.
    fn get_real(&self, name: &str) -> f64 {
        match self.value(name) {
            Value::Real(v) => v,
            other => wrong_type(name, "real", &other),
        }
    }

    /// A string setting.
    fn get_str(&self, name: &str) -> Arc<str> {
        match self.value(name) {
            Value::Str(s) => s,
            other => wrong_type(name, "string", &other),
        }
    }

    /// An enum setting's canonical word (`"remote_apply"`).
    fn get_enum(&self, name: &str) -> &'static str {
        match self.value(name) {
            Value::Enum(word) => word,
            other => wrong_type(name, "enum", &other),
        }
    }

    /// A memory setting in bytes (`shared_buffers` 16384 × 8kB → 134217728);
    /// None when the value is negative (PostgreSQL's "-1: use the default").
    fn get_bytes(&self, name: &str) -> Option<u64> {
        let (amount, unit) = with_unit(self, name, true);
        (amount >= 0.0).then(|| (amount * unit.to_bytes_or_ms()) as u64)
    }

    /// A time setting as a duration (`checkpoint_timeout` 300 s → 5 min;
    /// `vacuum_cost_delay` 0.5 ms → 500 µs); None when the value is negative
    /// (PostgreSQL's "-1: disabled"). What zero means is the setting's own
    /// business (`statement_timeout` 0 = no timeout).
    fn get_duration(&self, name: &str) -> Option<Duration> {
        let (amount, unit) = with_unit(self, name, false);
        (amount >= 0.0).then(|| Duration::from_secs_f64(amount * unit.to_bytes_or_ms() / 1000.0))
    }

    /// [`Settings::get_duration`] in whole milliseconds.
    fn get_duration_ms(&self, name: &str) -> Option<u64> {
        self.get_duration(name).map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

/// with_unit -- the numeric value of a memory (`memory`) or time setting and
/// its base unit; panics if the setting is not of that kind.
fn with_unit<S: Settings + ?Sized>(
    settings: &S,
    name: &str,
    memory: bool,
) -> (f64, crate::units::Unit) {
    let kind = if memory { "memory" } else { "time" };
    let id = registered(name);
    let unit = match id.setting().unit {
        Some(unit) if unit.is_memory() == memory => unit,
        _ => panic!("setting \"{name}\" is not a {kind} setting"),
    };
    let amount = match settings.value_of(id) {
        Value::Int(v) => f64::from(v),
        Value::Real(v) => v,
        other => wrong_type(name, kind, &other),
    };
    (amount, unit)
}

/// registered -- the id of a setting named in sluice code; panics if unknown.
fn registered(name: &str) -> SettingId {
    registry::lookup(name)
        .unwrap_or_else(|| panic!("unknown setting \"{name}\": a misspelt name in sluice code"))
}

/// Panics for a getter of the wrong type: a bug in the calling code.
fn wrong_type(name: &str, wanted: &str, found: &Value) -> ! {
    panic!("setting \"{name}\" is not a {wanted} setting (value {found:?})")
}
