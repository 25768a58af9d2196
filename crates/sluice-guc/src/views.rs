//! Rows of the views over settings: `pg_settings`, `SHOW ALL`.
//! (`pg_file_settings` rows are [`crate::ConfigItem`]s.)
//!
//! Values are already text, exactly as PostgreSQL prints them, so the SQL
//! layer only has to wrap them in datums: `setting` in the base unit
//! (`shared_buffers` "16384" with unit "8kB"), `boot_val`/`reset_val` raw
//! (no show hook), NULL where PostgreSQL has NULL.

use crate::registry::{Kind, Setting};
use crate::session::var::Var;
use crate::source::Source;
use crate::value::{format_g, Value};

/// One row of `SHOW ALL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShowAllRow {
    /// `name`.
    pub name: &'static str,
    /// `setting`, with units.
    pub setting: String,
    /// `description`.
    pub description: &'static str,
}

/// One row of `pg_settings`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingRow {
    /// `name`.
    pub name: &'static str,
    /// `setting`: the current value in the base unit.
    pub setting: String,
    /// `unit`: the base unit (`kB`, `8kB`, `ms`), NULL if none.
    pub unit: Option<&'static str>,
    /// `category`.
    pub category: &'static str,
    /// `short_desc`.
    pub short_desc: &'static str,
    /// `extra_desc`.
    pub extra_desc: Option<&'static str>,
    /// `context`.
    pub context: &'static str,
    /// `vartype`.
    pub vartype: &'static str,
    /// `source`.
    pub source: &'static str,
    /// `min_val` (numbers only).
    pub min_val: Option<String>,
    /// `max_val` (numbers only).
    pub max_val: Option<String>,
    /// `enumvals` (enums only).
    pub enumvals: Option<Vec<&'static str>>,
    /// `boot_val`.
    pub boot_val: Option<String>,
    /// `reset_val`.
    pub reset_val: Option<String>,
    /// `sourcefile`, while the value comes from a configuration file.
    pub sourcefile: Option<String>,
    /// `sourceline`, likewise.
    pub sourceline: Option<i32>,
    /// `pending_restart`.
    pub pending_restart: bool,
}

/// setting_row -- the `pg_settings` row of a session's setting; `setting`
/// is its display without units, `boot` the server's boot value.
pub(crate) fn setting_row(
    var: &Var,
    boot: &Value,
    setting: String,
    pending_restart: bool,
) -> SettingRow {
    let def = var.def;
    let (min_val, max_val) = limits(def, boot);
    let from_file = var.cur.source == Source::File;
    let null_boot = matches!(def.kind, Kind::String { boot: None });
    SettingRow {
        name: def.name,
        setting,
        unit: def.unit.map(|u| u.as_str()),
        category: def.category.as_str(),
        short_desc: def.short_desc,
        extra_desc: def.extra_desc,
        context: def.context.as_str(),
        vartype: def.vartype(),
        source: var.cur.source.as_str(),
        min_val,
        max_val,
        enumvals: matches!(def.kind, Kind::Enum { .. }).then(|| def.enum_values().collect()),
        boot_val: (!null_boot).then(|| boot.display(None, false)),
        // A NULL boot value is still the reset value until something sets it.
        reset_val: (!(null_boot && var.reset.source == Source::Default))
            .then(|| var.reset.value.display(None, false)),
        sourcefile: from_file
            .then(|| var.sourcefile.as_ref().map(|(f, _)| f.to_string()))
            .flatten(),
        sourceline: from_file.then(|| var.sourcefile.as_ref().map(|&(_, l)| l as i32)).flatten(),
        pending_restart,
    }
}

/// limits -- `min_val` and `max_val` as PostgreSQL prints them.
fn limits(def: &Setting, boot: &Value) -> (Option<String>, Option<String>) {
    match def.kind {
        // The version number's only valid value is the one reported.
        Kind::Int { .. } if def.name == "server_version_num" => {
            (Some(boot.display(None, false)), Some(boot.display(None, false)))
        }
        Kind::Int { min, max, .. } => (Some(min.to_string()), Some(max.to_string())),
        Kind::Real { min, max, .. } => (Some(format_g(min)), Some(format_g(max))),
        _ => (None, None),
    }
}
