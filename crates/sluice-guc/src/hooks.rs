//! Check and show hooks: per-setting validation and display beyond type and
//! range (PostgreSQL's `check_*` and `show_*` functions in `variable.c`,
//! `guc.c` and elsewhere).
//!
//! A check hook sees a value that already parsed and is within range; it may
//! reject it (with PostgreSQL's DETAIL, HINT, message or SQLSTATE) or replace
//! it with a canonical form (`DateStyle` `'sql, dmy'` is stored as
//! `"SQL, DMY"`, `TimeZone` `'europe/paris'` as `"Europe/Paris"`). Hooks are
//! pure functions: they run for `SET`, the configuration file, the command
//! line and `ALTER SYSTEM` alike, and must not touch any state.
//!
//! Hooks that need the catalogs (`default_tablespace`, `search_path` schemas,
//! `default_text_search_config`, `role`) or the transaction state
//! (`transaction_isolation` after the first query) are the SQL layer's: it
//! checks before it calls `set`.

use std::sync::Arc;

use crate::settings::Settings;
use crate::value::Value;

/// Validates a parsed value; returns the value to store.
pub type CheckHook = fn(Value, &HookContext) -> Result<Value, HookError>;

/// Replaces the default display of a value; may consult other settings.
pub type ShowHook = fn(&Value, &dyn Settings) -> String;

/// What a check hook may know besides the new value.
pub struct HookContext<'a> {
    /// The setting's current value where it is being set.
    pub current: &'a Value,
    /// The setting's reset value there (what `DEFAULT` means).
    pub reset: &'a Value,
}

/// A check hook's refusal (PostgreSQL's `GUC_check_err*`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookError {
    /// SQLSTATE; `None` means 22023 invalid_parameter_value.
    pub code: Option<&'static str>,
    /// Replaces `invalid value for parameter "x": "y"` when set.
    pub message: Option<String>,
    /// DETAIL line.
    pub detail: Option<String>,
    /// HINT line.
    pub hint: Option<String>,
}

impl HookError {
    /// A refusal with only a DETAIL line.
    fn detail(text: String) -> HookError {
        HookError { detail: Some(text), ..HookError::default() }
    }

    /// A refusal with its own message.
    fn message(text: &str) -> HookError {
        HookError { message: Some(text.to_string()), ..HookError::default() }
    }
}

/// The DETAIL for a malformed identifier list.
const LIST_SYNTAX: &str = "List syntax is invalid.";

/// The text of a string value (hooks are only installed on matching types).
fn text(value: &Value) -> &str {
    match value {
        Value::Str(s) => s,
        other => unreachable!("string hook on {other:?}"),
    }
}

/// split_identifier_list -- PostgreSQL's `SplitIdentifierString` with a comma:
/// elements separated by commas and optional spaces, each a double-quoted
/// identifier (`""` for a quote, case kept) or an unquoted word (downcased).
/// None if the syntax is invalid; an empty or all-space string is no elements.
pub fn split_identifier_list(list: &str) -> Option<Vec<String>> {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c');
    let mut rest = list.trim_start_matches(is_space);
    let mut names = Vec::new();
    if rest.is_empty() {
        return Some(names);
    }
    loop {
        let name;
        if let Some(quoted) = rest.strip_prefix('"') {
            let (unquoted, after) = take_quoted(quoted)?;
            name = unquoted;
            rest = after;
        } else {
            let end = rest.find(|c: char| c == ',' || is_space(c)).unwrap_or(rest.len());
            if end == 0 {
                return None;
            }
            name = rest[..end].to_ascii_lowercase();
            rest = &rest[end..];
        }
        names.push(name);
        rest = rest.trim_start_matches(is_space);
        match rest.strip_prefix(',') {
            Some(after) => rest = after.trim_start_matches(is_space),
            None if rest.is_empty() => return Some(names),
            None => return None,
        }
    }
}

/// The body of a double-quoted identifier (opening quote already consumed)
/// and the text after the closing quote. An empty one (`""`) is a name,
/// as in PostgreSQL's SplitIdentifierString (`SET search_path = ''`
/// stores it, and no schema has it).
fn take_quoted(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '"' {
            out.push(c);
        } else if s[i + 1..].starts_with('"') {
            out.push('"');
            chars.next();
        } else {
            return Some((out, &s[i + 1..]));
        }
    }
    None
}

/// `search_path`, `temp_tablespaces`: the list must parse; the names are
/// checked against the catalogs when used, as in PostgreSQL.
pub(crate) fn identifier_list(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match split_identifier_list(text(&value)) {
        Some(_) => Ok(value),
        None => Err(HookError::detail(LIST_SYNTAX.to_string())),
    }
}

/// The output style half of `DateStyle`.
#[derive(Clone, Copy, PartialEq)]
enum DateStyle {
    Iso,
    Sql,
    Postgres,
    German,
}

/// The field order half of `DateStyle`.
#[derive(Clone, Copy, PartialEq)]
enum DateOrder {
    Ymd,
    Dmy,
    Mdy,
}

/// datestyle -- `check_datestyle`: a list of style and order keywords; words
/// not given keep their current value; `DEFAULT` means the reset value's.
/// Stored canonically: `"ISO, MDY"`.
pub(crate) fn datestyle(value: Value, ctx: &HookContext) -> Result<Value, HookError> {
    let (mut style, mut order) = parse_datestyle(text(ctx.current));
    let (mut have_style, mut have_order, mut conflict) = (false, false, false);
    let words =
        split_identifier_list(text(&value)).ok_or_else(|| HookError::detail(LIST_SYNTAX.into()))?;
    for word in &words {
        let w = word.to_ascii_lowercase();
        let new_style = match w.as_str() {
            "iso" => Some(DateStyle::Iso),
            "sql" => Some(DateStyle::Sql),
            _ if w.starts_with("postgres") => Some(DateStyle::Postgres),
            "german" => Some(DateStyle::German),
            _ => None,
        };
        let new_order = match w.as_str() {
            "ymd" => Some(DateOrder::Ymd),
            "dmy" => Some(DateOrder::Dmy),
            _ if w.starts_with("euro") => Some(DateOrder::Dmy),
            "mdy" | "us" => Some(DateOrder::Mdy),
            _ if w.starts_with("noneuro") => Some(DateOrder::Mdy),
            _ => None,
        };
        if let Some(s) = new_style {
            conflict |= have_style && style != s;
            style = s;
            have_style = true;
            // GERMAN implies day-first unless an order was given.
            if s == DateStyle::German && !have_order {
                order = DateOrder::Dmy;
            }
        } else if let Some(o) = new_order {
            conflict |= have_order && order != o;
            order = o;
            have_order = true;
        } else if w == "default" {
            let (reset_style, reset_order) = parse_datestyle(text(ctx.reset));
            style = if have_style { style } else { reset_style };
            order = if have_order { order } else { reset_order };
        } else {
            return Err(HookError::detail(format!("Unrecognized key word: \"{word}\".")));
        }
    }
    if conflict {
        return Err(HookError::detail("Conflicting \"datestyle\" specifications.".into()));
    }
    Ok(Value::Str(Arc::from(format_datestyle(style, order))))
}

/// Reads a canonical `DateStyle` value ("ISO, MDY") back into its halves.
fn parse_datestyle(canonical: &str) -> (DateStyle, DateOrder) {
    let (style, order) = canonical.split_once(", ").unwrap_or((canonical, "MDY"));
    let style = match style {
        "SQL" => DateStyle::Sql,
        "Postgres" => DateStyle::Postgres,
        "German" => DateStyle::German,
        _ => DateStyle::Iso,
    };
    let order = match order {
        "YMD" => DateOrder::Ymd,
        "DMY" => DateOrder::Dmy,
        _ => DateOrder::Mdy,
    };
    (style, order)
}

/// The canonical text of a `DateStyle`.
fn format_datestyle(style: DateStyle, order: DateOrder) -> String {
    let style = match style {
        DateStyle::Iso => "ISO",
        DateStyle::Sql => "SQL",
        DateStyle::Postgres => "Postgres",
        DateStyle::German => "German",
    };
    let order = match order {
        DateOrder::Ymd => "YMD",
        DateOrder::Dmy => "DMY",
        DateOrder::Mdy => "MDY",
    };
    format!("{style}, {order}")
}

/// Hours of UTC offset PostgreSQL's zone parser accepts (one week, exclusive).
const MAX_OFFSET_HOURS: f64 = 168.0;

/// timezone -- `check_timezone` for `TimeZone` and `log_timezone`: a number
/// of hours east of UTC (stored as the POSIX name PostgreSQL makes of it,
/// `'+3'` → `"<+03>-03"`), an IANA zone name in any case (stored in the tz
/// database's spelling), or a POSIX zone specification (stored upper-case).
pub(crate) fn timezone(value: Value, _: &HookContext) -> Result<Value, HookError> {
    let name = text(&value);
    if let Ok(hours) = name.parse::<f64>() {
        if !hours.is_finite() || hours.abs() >= MAX_OFFSET_HOURS {
            return Err(HookError::detail("UTC timezone offset is out of range.".into()));
        }
        // SQL counts hours east; POSIX seconds west. C truncates toward zero.
        let seconds_west = (-hours * 3600.0) as i64;
        return Ok(Value::Str(Arc::from(posix_offset_name(seconds_west))));
    }
    if let Ok(zone) = jiff::tz::TimeZone::get(name) {
        let canonical = zone.iana_name().unwrap_or(name).to_string();
        return Ok(Value::Str(Arc::from(canonical)));
    }
    let upper = name.to_ascii_uppercase();
    match jiff::tz::TimeZone::posix(&upper) {
        Ok(_) => Ok(Value::Str(Arc::from(upper))),
        Err(_) => Err(HookError::default()),
    }
}

/// posix_offset_name -- PostgreSQL's `pg_tzset_offset` name for a fixed zone
/// `seconds_west` west of Greenwich: `<-08>+08`, `<+05:30>-05:30`.
fn posix_offset_name(seconds_west: i64) -> String {
    let abs = seconds_west.abs();
    let mut offset = format!("{:02}", abs / 3600);
    if abs % 3600 != 0 {
        offset.push_str(&format!(":{:02}", abs % 3600 / 60));
        if abs % 60 != 0 {
            offset.push_str(&format!(":{:02}", abs % 60));
        }
    }
    if seconds_west > 0 {
        format!("<-{offset}>+{offset}")
    } else {
        format!("<+{offset}>-{offset}")
    }
}

/// PostgreSQL's encoding names, in its spelling and in its numbering (`pg_enc`:
/// the index is `pg_database.encoding`; the first [`SERVER_ENCODING_COUNT`]
/// can be server encodings). [`canonical_encoding`] matches input against
/// their cleaned forms (lowercase, only letters and digits) and the aliases
/// below.
pub const ENCODINGS: &[&str] = &[
    "SQL_ASCII",
    "EUC_JP",
    "EUC_CN",
    "EUC_KR",
    "EUC_TW",
    "EUC_JIS_2004",
    "UTF8",
    "MULE_INTERNAL",
    "LATIN1",
    "LATIN2",
    "LATIN3",
    "LATIN4",
    "LATIN5",
    "LATIN6",
    "LATIN7",
    "LATIN8",
    "LATIN9",
    "LATIN10",
    "WIN1256",
    "WIN1258",
    "WIN866",
    "WIN874",
    "KOI8R",
    "WIN1251",
    "WIN1252",
    "ISO_8859_5",
    "ISO_8859_6",
    "ISO_8859_7",
    "ISO_8859_8",
    "WIN1250",
    "WIN1253",
    "WIN1254",
    "WIN1255",
    "WIN1257",
    "KOI8U",
    "SJIS",
    "BIG5",
    "GBK",
    "UHC",
    "GB18030",
    "JOHAB",
    "SHIFT_JIS_2004",
];

/// Common alternative names (PostgreSQL's `pg_encname_tbl`), cleaned form first.
const ENCODING_ALIASES: &[(&str, &str)] = &[
    ("unicode", "UTF8"),
    ("iso88591", "LATIN1"),
    ("iso88592", "LATIN2"),
    ("iso88593", "LATIN3"),
    ("iso88594", "LATIN4"),
    ("iso88599", "LATIN5"),
    ("iso885910", "LATIN6"),
    ("iso885913", "LATIN7"),
    ("iso885914", "LATIN8"),
    ("iso885915", "LATIN9"),
    ("iso885916", "LATIN10"),
    ("koi8", "KOI8R"),
    ("win", "WIN1251"),
    ("alt", "WIN866"),
    ("mskanji", "SJIS"),
    ("shiftjis", "SJIS"),
    ("windows1252", "WIN1252"),
    ("windows1251", "WIN1251"),
    ("windows1250", "WIN1250"),
    ("cp1252", "WIN1252"),
    ("cp936", "GBK"),
    ("cp949", "UHC"),
    ("cp932", "SJIS"),
];

/// How many of [`ENCODINGS`] may be server encodings (up to KOI8U).
pub const SERVER_ENCODING_COUNT: usize = 35;

/// The server encoding: sluice stores text as UTF-8 only.
pub const SERVER_ENCODING: &str = "UTF8";

/// canonical_encoding -- PostgreSQL's name for an encoding given in any
/// spelling it accepts (`utf-8`, `Unicode`, `latin1`), or None.
pub fn canonical_encoding(name: &str) -> Option<&'static str> {
    let clean: String =
        name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    let matches = |e: &&str| {
        e.chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .eq_ignore_ascii_case(&clean)
    };
    ENCODINGS
        .iter()
        .copied()
        .find(matches)
        .or_else(|| ENCODING_ALIASES.iter().find(|(alias, _)| *alias == clean).map(|(_, e)| *e))
}

/// client_encoding -- `check_client_encoding`: a known encoding, stored under
/// its canonical name. sluice converts nothing, so only UTF8 and SQL_ASCII
/// (which PostgreSQL never converts either) are accepted; other known
/// encodings get PostgreSQL's 0A000 "conversion not supported" refusal.
pub(crate) fn client_encoding(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match canonical_encoding(text(&value)) {
        Some(enc @ (SERVER_ENCODING | "SQL_ASCII")) => Ok(Value::Str(Arc::from(enc))),
        Some(enc) => Err(HookError {
            code: Some("0A000"),
            detail: Some(format!(
                "Conversion between {enc} and {SERVER_ENCODING} is not supported."
            )),
            ..HookError::default()
        }),
        None => Err(HookError::default()),
    }
}

/// clean_ascii -- `application_name`, `cluster_name`: every byte that is not
/// printable ASCII becomes `?` (PostgreSQL's `pg_clean_ascii`), so the name
/// is safe in any client encoding and in logs.
pub(crate) fn clean_ascii(value: Value, _: &HookContext) -> Result<Value, HookError> {
    let s = text(&value);
    if s.bytes().all(|b| (32..127).contains(&b)) {
        return Ok(value);
    }
    let cleaned: String =
        s.bytes().map(|b| if (32..127).contains(&b) { char::from(b) } else { '?' }).collect();
    Ok(Value::Str(Arc::from(cleaned)))
}

/// timezone_abbreviations -- only the abbreviation files PostgreSQL ships.
pub(crate) fn timezone_abbreviations(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match text(&value) {
        "Default" | "Australia" | "India" => Ok(value),
        _ => Err(HookError::default()),
    }
}

/// log_destination -- a list of `stderr`, `csvlog`, `jsonlog`, `syslog`.
pub(crate) fn log_destination(value: Value, _: &HookContext) -> Result<Value, HookError> {
    let words =
        split_identifier_list(text(&value)).ok_or_else(|| HookError::detail(LIST_SYNTAX.into()))?;
    match words.iter().find(|w| {
        !matches!(w.to_ascii_lowercase().as_str(), "stderr" | "csvlog" | "jsonlog" | "syslog")
    }) {
        Some(word) => Err(HookError::detail(format!("Unrecognized key word: \"{word}\"."))),
        None => Ok(value),
    }
}

/// ssl -- sluice has no SSL support: refuse to turn it on, as a PostgreSQL
/// built without SSL does, rather than pretend.
pub(crate) fn ssl(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match value {
        Value::Bool(true) => Err(HookError::message("SSL is not supported by this build")),
        other => Ok(other),
    }
}

/// bonjour -- likewise not supported.
pub(crate) fn bonjour(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match value {
        Value::Bool(true) => Err(HookError::message("Bonjour is not supported by this build")),
        other => Ok(other),
    }
}

/// default_with_oids -- may only be false.
pub(crate) fn default_with_oids(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match value {
        Value::Bool(true) => Err(HookError {
            code: Some("0A000"),
            ..HookError::message("tables declared WITH OIDS are not supported")
        }),
        other => Ok(other),
    }
}

/// autovacuum_work_mem -- -1 (use `maintenance_work_mem`) or at least 1MB;
/// smaller values are raised to 1MB.
pub(crate) fn autovacuum_work_mem(value: Value, _: &HookContext) -> Result<Value, HookError> {
    match value {
        Value::Int(v) if v != -1 && v < 1024 => Ok(Value::Int(1024)),
        other => Ok(other),
    }
}

/// show_octal -- file modes as PostgreSQL prints them: `0777`.
pub(crate) fn show_octal(value: &Value, _: &dyn Settings) -> String {
    match value {
        Value::Int(v) => format!("{v:04o}"),
        other => other.display(None, false),
    }
}

/// show_seed -- the random seed cannot be read back.
pub(crate) fn show_seed(_: &Value, _: &dyn Settings) -> String {
    "unavailable".to_string()
}

/// show_archive_command -- `(disabled)` unless `archive_mode` is on.
pub(crate) fn show_archive_command(value: &Value, settings: &dyn Settings) -> String {
    if settings.get_enum("archive_mode") == "off" {
        "(disabled)".to_string()
    } else {
        value.display(None, false)
    }
}

#[cfg(test)]
mod tests;
