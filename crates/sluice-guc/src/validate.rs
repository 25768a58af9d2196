//! Checking a proposed value: may this setting change now, from here
//! ([`check_context`]), and is the text a valid value ([`parse_value`])?
//! PostgreSQL does both in `set_config_option` and `parse_and_validate_value`;
//! they are shared here by SET, the configuration file, the command line and
//! ALTER SYSTEM so all four give the same errors.

use std::sync::Arc;

use crate::error::{GucError, InvalidValue, Result};
use crate::hooks::{HookContext, HookError};
use crate::registry::{self, flags, Context, Kind, Setting};
use crate::source::Source;
use crate::value::{format_g, lookup_enum, parse_bool, parse_int, parse_real, Value};

/// Identifiers (and `IS_NAME` settings) are truncated to this many bytes.
const MAX_IDENTIFIER_BYTES: usize = 63;

/// What [`check_context`] allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Permit {
    /// Go ahead.
    Go,
    /// A postmaster setting read again from the file: the value may not
    /// change, and a different one means a restart is pending.
    ProhibitChange,
}

/// check_context -- may `setting` be set by a caller acting in `caller`
/// context (postmaster at startup, sighup on reload, backend for the startup
/// packet, user or superuser for SET) with a value from `source`?
pub(crate) fn check_context(
    setting: &Setting,
    name: &str,
    caller: Context,
    source: Source,
) -> Result<Permit> {
    let name = name.to_string();
    match setting.context {
        Context::Internal if caller != Context::Internal => Err(GucError::CannotBeChanged { name }),
        Context::Postmaster if caller == Context::Sighup => Ok(Permit::ProhibitChange),
        Context::Postmaster if caller != Context::Postmaster => {
            Err(GucError::RequiresRestart { name })
        }
        Context::Sighup if !matches!(caller, Context::Sighup | Context::Postmaster) => {
            Err(GucError::CannotChangeNow { name })
        }
        Context::SuBackend if caller == Context::Backend => {
            Err(GucError::PermissionDenied { name })
        }
        Context::SuBackend | Context::Backend
            if !matches!(
                caller,
                Context::Sighup | Context::Postmaster | Context::Backend | Context::SuBackend
            ) && source != Source::Client =>
        {
            Err(GucError::AfterConnectionStart { name })
        }
        Context::Superuser if matches!(caller, Context::User | Context::Backend) => {
            Err(GucError::PermissionDenied { name })
        }
        _ => Ok(Permit::Go),
    }
}

/// parse_value -- turn `text` into a value of `setting` (named `name` in
/// errors): type syntax, range, identifier truncation, then the check hook.
pub(crate) fn parse_value(
    setting: &Setting,
    name: &str,
    text: &str,
    ctx: &HookContext,
) -> Result<Value> {
    let value = match setting.kind {
        Kind::Bool { .. } => Value::Bool(
            parse_bool(text).ok_or_else(|| GucError::RequiresBoolean { name: name.to_string() })?,
        ),
        Kind::Int { min, max, .. } => {
            let v = parse_int(text, setting.unit)
                .map_err(|hint| GucError::invalid_value(name, text, hint))?;
            if v < min || v > max {
                return Err(out_of_range(
                    setting,
                    name,
                    v.to_string(),
                    min.to_string(),
                    max.to_string(),
                ));
            }
            Value::Int(v)
        }
        Kind::Real { min, max, .. } => {
            let v = parse_real(text, setting.unit)
                .map_err(|hint| GucError::invalid_value(name, text, hint))?;
            if v < min || v > max {
                return Err(out_of_range(setting, name, format_g(v), format_g(min), format_g(max)));
            }
            Value::Real(v)
        }
        Kind::String { .. } if setting.has(flags::IS_NAME) => {
            Value::Str(Arc::from(truncate_identifier(text)))
        }
        Kind::String { .. } => Value::Str(Arc::from(text)),
        Kind::Enum { options, .. } => Value::Enum(lookup_enum(options, text).ok_or_else(|| {
            let words: Vec<&str> = setting.enum_values().collect();
            let hint = format!("Available values: {}.", words.join(", "));
            GucError::invalid_value(name, text, Some(&hint))
        })?),
    };
    match setting.check {
        Some(hook) => hook(value, ctx).map_err(|e| hook_error(name, text, e)),
        None => Ok(value),
    }
}

/// The range error, with the value and limits already printed.
fn out_of_range(
    setting: &Setting,
    name: &str,
    value: String,
    min: String,
    max: String,
) -> GucError {
    let unit = setting.unit.map(|u| u.as_str());
    GucError::OutOfRange { name: name.to_string(), value, unit, min, max }
}

/// A hook's refusal as an invalid-value error.
fn hook_error(name: &str, text: &str, e: HookError) -> GucError {
    GucError::InvalidValue(Box::new(InvalidValue {
        name: name.to_string(),
        value: text.to_string(),
        code: e.code.unwrap_or("22023"),
        message: e.message,
        detail: e.detail,
        hint: e.hint,
    }))
}

/// truncate_identifier -- cut a name to 63 bytes on a character boundary.
pub(crate) fn truncate_identifier(text: &str) -> &str {
    if text.len() <= MAX_IDENTIFIER_BYTES {
        return text;
    }
    let mut end = MAX_IDENTIFIER_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// valid_custom_name -- PostgreSQL's rule for placeholder names: two or more
/// identifiers (letters, `_`, high-bit bytes; digits and `$` after the first
/// character) separated by dots.
pub(crate) fn valid_custom_name(name: &str) -> bool {
    let mut saw_dot = false;
    let mut at_start = true;
    for b in name.bytes() {
        if b == b'.' {
            if at_start {
                return false;
            }
            saw_dot = true;
            at_start = true;
        } else if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            at_start = false;
        } else if at_start || !(b.is_ascii_digit() || b == b'$') {
            return false;
        }
    }
    saw_dot && !at_start
}

/// One argument of `SET name = a, b, ...` as the parser saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetArg<'a> {
    /// A string constant or bare word (`'UTC'`, `public`, `on`).
    String(&'a str),
    /// A numeric constant, as written (`8192`, `0.5`).
    Number(&'a str),
}

/// flatten_set_args -- PostgreSQL's `flatten_set_variable_args`: the one
/// string a SET (or ALTER SYSTEM) statement's arguments stand for. Only list
/// settings (`search_path`, `DateStyle`...) take several arguments, joined
/// with ", "; in identifier lists (`search_path`) string arguments are
/// quoted with `quote_identifier`, which the SQL layer supplies because it
/// knows the keywords (`'$user'` → `"$user"`, `'user'` → `"user"`).
pub fn flatten_set_args(
    name: &str,
    args: &[SetArg],
    quote_identifier: impl Fn(&str) -> String,
) -> Result<String> {
    let flags = registry::lookup(name).map_or(0, |id| id.setting().flags);
    if flags & flags::LIST_INPUT == 0 && args.len() != 1 {
        return Err(GucError::TakesOneArgument { name: name.to_string() });
    }
    let parts: Vec<String> = args
        .iter()
        .map(|arg| match *arg {
            SetArg::Number(text) => text.to_string(),
            SetArg::String(text) if flags & flags::LIST_QUOTE != 0 => quote_identifier(text),
            SetArg::String(text) => text.to_string(),
        })
        .collect();
    Ok(parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quotes like PostgreSQL's `quote_identifier` for non-keywords.
    fn quote(s: &str) -> String {
        let plain = s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if plain {
            s.to_string()
        } else {
            format!("\"{}\"", s.replace('"', "\"\""))
        }
    }

    #[test]
    fn flattening_set_arguments() {
        use SetArg::{Number, String};
        let cases: &[(&str, &[SetArg], std::result::Result<&str, &str>)] = &[
            (
                "search_path",
                &[String("$user"), String("public"), String("X y")],
                Ok("\"$user\", public, \"X y\""),
            ),
            ("search_path", &[String("a,b")], Ok("\"a,b\"")),
            ("DateStyle", &[String("iso"), String("mdy")], Ok("iso, mdy")),
            ("work_mem", &[Number("8192")], Ok("8192")),
            ("work_mem", &[Number("1"), Number("2")], Err("SET work_mem takes only one argument")),
            (
                "my.custom",
                &[String("a"), String("b")],
                Err("SET my.custom takes only one argument"),
            ),
        ];
        for &(name, args, expected) in cases {
            let got = flatten_set_args(name, args, quote).map_err(|e| e.to_string());
            assert_eq!(got.as_deref().map_err(std::string::String::as_str), expected, "{name}");
        }
    }

    #[test]
    fn custom_names() {
        for (name, valid) in [
            ("a.b", true),
            ("a.b.c", true),
            ("a_1.$x", false),
            ("a.b$1", true),
            ("a..b", false),
            (".a", false),
            ("a.", false),
            ("ab", false),
            ("1a.b", false),
        ] {
            assert_eq!(valid_custom_name(name), valid, "{name}");
        }
    }
}
