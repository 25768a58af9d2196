//! [`Context`]: the session state that some values' meaning depends on.
//!
//! Most of this crate is pure: `2 + 2` needs nothing but its operands. A few
//! operations depend on the session, exactly as in PostgreSQL: reading and
//! printing `timestamptz` uses the `TimeZone` setting; printing dates and
//! times follows `DateStyle` (and reading an ambiguous `01/02/03` follows
//! its field order); printing intervals follows `IntervalStyle`; and the
//! input words `now`, `today`, `tomorrow` and `yesterday` (and the functions
//! `now()`, `age(ts)`) use the transaction's start time. The executor passes
//! a `Context` into those functions; nothing here reads a clock or a global.
//! The settings arrive as the canonical text `sluice-guc` stores
//! (`DateStyle = 'Postgres, DMY'`), read by [`DateStyle::from_setting`] and
//! [`IntervalStyle::from_setting`].

use crate::datetime::TimeZone;

/// Session settings and clock readings needed by date/time functions.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The session's `TimeZone` setting.
    pub time_zone: TimeZone,
    /// The transaction start time (`now()`), as a `timestamptz` value:
    /// microseconds since 2000-01-01 00:00:00 UTC.
    pub now: i64,
    /// The session's `DateStyle` setting.
    pub date_style: DateStyle,
    /// The session's `IntervalStyle` setting.
    pub interval_style: IntervalStyle,
}

impl Context {
    /// A context in time zone `time_zone` at transaction time `now`, with
    /// PostgreSQL's default styles (`ISO, MDY`, `postgres`).
    pub fn new(time_zone: TimeZone, now: i64) -> Context {
        Context { time_zone, now, ..Context::default() }
    }

    /// The same context with other output styles.
    pub fn with_styles(self, date_style: DateStyle, interval_style: IntervalStyle) -> Context {
        Context { date_style, interval_style, ..self }
    }
}

/// `DateStyle`: how dates and times print, and how ambiguous numeric dates
/// are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DateStyle {
    /// The output format.
    pub format: DateFormat,
    /// The field order.
    pub order: DateOrder,
}

/// The output half of `DateStyle` (PostgreSQL's `USE_*_DATES`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DateFormat {
    /// `ISO`: `2024-01-02 03:04:05-08`.
    #[default]
    Iso,
    /// `SQL`: `01/02/2024 03:04:05 PST`.
    Sql,
    /// `Postgres`: `Tue Jan 02 03:04:05 2024 PST`.
    Postgres,
    /// `German`: `02.01.2024 03:04:05 PST`.
    German,
}

/// The field-order half of `DateStyle` (PostgreSQL's `DATEORDER_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DateOrder {
    /// `MDY`: `01/02/03` is January 2nd, 2003.
    #[default]
    Mdy,
    /// `DMY`: `01/02/03` is February 1st, 2003.
    Dmy,
    /// `YMD`: `01/02/03` is February 3rd, 2001.
    Ymd,
}

impl DateStyle {
    /// Reads the canonical setting text (`ISO, MDY`); anything unrecognised
    /// keeps the default, since `sluice-guc` has validated the value.
    pub fn from_setting(text: &str) -> DateStyle {
        let mut style = DateStyle::default();
        for word in text.split(',').map(|w| w.trim().to_ascii_lowercase()) {
            match word.as_str() {
                "iso" => style.format = DateFormat::Iso,
                "sql" => style.format = DateFormat::Sql,
                "postgres" => style.format = DateFormat::Postgres,
                "german" => style.format = DateFormat::German,
                "mdy" => style.order = DateOrder::Mdy,
                "dmy" => style.order = DateOrder::Dmy,
                "ymd" => style.order = DateOrder::Ymd,
                _ => {}
            }
        }
        style
    }
}

/// `IntervalStyle` (PostgreSQL's `INTSTYLE_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IntervalStyle {
    /// `postgres`: `1 day 02:00:00`.
    #[default]
    Postgres,
    /// `postgres_verbose`: `@ 1 day 2 hours`.
    PostgresVerbose,
    /// `sql_standard`: `1 2:00:00`.
    SqlStandard,
    /// `iso_8601`: `P1DT2H`.
    Iso8601,
}

impl IntervalStyle {
    /// Reads the setting text (`postgres_verbose`); unknown text keeps the
    /// default.
    pub fn from_setting(text: &str) -> IntervalStyle {
        match text.trim().to_ascii_lowercase().as_str() {
            "postgres_verbose" => IntervalStyle::PostgresVerbose,
            "sql_standard" => IntervalStyle::SqlStandard,
            "iso_8601" => IntervalStyle::Iso8601,
            _ => IntervalStyle::Postgres,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_text_reads_back() {
        let s = DateStyle::from_setting("Postgres, DMY");
        assert_eq!((s.format, s.order), (DateFormat::Postgres, DateOrder::Dmy));
        assert_eq!(DateStyle::from_setting("ISO, MDY"), DateStyle::default());
        assert_eq!(DateStyle::from_setting("German, YMD").order, DateOrder::Ymd);
        assert_eq!(IntervalStyle::from_setting("iso_8601"), IntervalStyle::Iso8601);
        assert_eq!(IntervalStyle::from_setting("postgres"), IntervalStyle::Postgres);
    }
}
