//! Text output of dates and times in each `DateStyle` (PostgreSQL's
//! `EncodeDateOnly` and `EncodeDateTime`).
//!
//! ```text
//!   style     date         timestamp                  timestamptz (zone PST8PDT)
//!   ISO       2024-01-02   2024-01-02 03:04:05        2024-01-02 03:04:05-08
//!   SQL       01/02/2024   01/02/2024 03:04:05        01/02/2024 03:04:05 PST
//!   Postgres  01-02-2024   Tue Jan 02 03:04:05 2024   Tue Jan 02 03:04:05 2024 PST
//!   German    02.01.2024   02.01.2024 03:04:05        02.01.2024 03:04:05 PST
//! ```
//!
//! The field order `DMY` swaps day and month in `SQL` and `Postgres`
//! (`Tue 02 Jan 03:04:05 2024`); `German` is always day first, `ISO` always
//! year first, and `YMD` prints like `MDY`. ISO shows a `timestamptz`'s zone
//! as its offset (`+02`, `+05:30`, `+00:53:28`: only as many fields as are
//! non-zero); the other styles show the zone's abbreviation, or the offset
//! when the zone has none. Fractional seconds drop trailing zeros. Years
//! before 1 AD print as `0044 ... BC`, with `BC` after everything else;
//! years beyond 9999 simply get more digits. `time` prints alike in every
//! style.

use super::calendar::{self, Tm, USECS_PER_SEC};
use crate::context::{DateFormat, DateOrder, DateStyle};

/// Abbreviated month names, January first.
const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// Abbreviated weekday names, Sunday first.
const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/// The zone a `timestamptz` prints in.
pub struct Zone<'a> {
    /// Offset in seconds east of UTC.
    pub offset_secs: i32,
    /// The zone's abbreviation at that instant, if it has one.
    pub abbrev: Option<&'a str>,
}

/// The year as printed (`1 - year` before 1 AD, which then gets ` BC`).
fn display_year(tm: &Tm) -> (i64, bool) {
    if tm.year <= 0 {
        (1 - tm.year, true)
    } else {
        (tm.year, false)
    }
}

/// The date alone in `style`, without the BC suffix (returned separately so
/// timestamps can place it after the time and zone).
fn date_fields(tm: &Tm, style: DateStyle) -> (String, bool) {
    let (year, bc) = display_year(tm);
    let (m, d) = (tm.month, tm.day);
    let dmy = style.order == DateOrder::Dmy;
    let s = match style.format {
        DateFormat::Iso => format!("{year:04}-{m:02}-{d:02}"),
        DateFormat::Sql if dmy => format!("{d:02}/{m:02}/{year:04}"),
        DateFormat::Sql => format!("{m:02}/{d:02}/{year:04}"),
        DateFormat::German => format!("{d:02}.{m:02}.{year:04}"),
        DateFormat::Postgres if dmy => format!("{d:02}-{m:02}-{year:04}"),
        DateFormat::Postgres => format!("{m:02}-{d:02}-{year:04}"),
    };
    (s, bc)
}

/// `HH:MM:SS[.ffffff]` with trailing fractional zeros removed.
pub fn time_part(tm: &Tm) -> String {
    let mut s = format!("{:02}:{:02}:{:02}", tm.hour, tm.minute, tm.second);
    append_fraction(&mut s, tm.usec);
    s
}

/// Append `.ffffff` without trailing zeros, if the fraction is non-zero.
pub fn append_fraction(s: &mut String, usec: i64) {
    if usec != 0 {
        let frac = format!("{:06}", usec.abs());
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
}

/// Output of a `date` value (days since 2000-01-01).
pub fn date_out(days: i32, style: DateStyle) -> String {
    match days {
        i32::MIN => "-infinity".into(),
        i32::MAX => "infinity".into(),
        _ => {
            let (year, month, day) =
                calendar::j2date(i64::from(days) + calendar::POSTGRES_EPOCH_JDATE);
            let (s, bc) = date_fields(&Tm { year, month, day, ..Tm::default() }, style);
            if bc {
                s + " BC"
            } else {
                s
            }
        }
    }
}

/// Output of a `time` value (microseconds since midnight).
pub fn time_out(time: i64) -> String {
    time_part(&calendar::time2tm(time))
}

/// Output of a `timestamp` value.
pub fn timestamp_out(ts: i64, style: DateStyle) -> String {
    if let Some(s) = infinite_text(ts) {
        return s;
    }
    date_time(&calendar::timestamp2tm(ts), None, style)
}

/// Output of a `timestamptz` value in `zone` (its offset and abbreviation
/// at that instant).
pub fn timestamptz_out(ts: i64, zone: &Zone, style: DateStyle) -> String {
    if let Some(s) = infinite_text(ts) {
        return s;
    }
    let local = ts + i64::from(zone.offset_secs) * USECS_PER_SEC;
    date_time(&calendar::timestamp2tm(local), Some(zone), style)
}

/// date_time -- `EncodeDateTime`: date, time and (for `timestamptz`) zone
/// of the broken-down local time `tm` in `style`.
fn date_time(tm: &Tm, zone: Option<&Zone>, style: DateStyle) -> String {
    let time = time_part(tm);
    let (mut s, bc) = match style.format {
        DateFormat::Postgres => postgres_date_time(tm, &time, style.order),
        _ => {
            let (date, bc) = date_fields(tm, style);
            (format!("{date} {time}"), bc)
        }
    };
    if let Some(zone) = zone {
        match (style.format, zone.abbrev) {
            (DateFormat::Iso, _) | (_, None) => {
                if style.format != DateFormat::Iso {
                    s.push(' ');
                }
                s.push_str(&offset_text(zone.offset_secs));
            }
            (_, Some(abbrev)) => {
                s.push(' ');
                s.push_str(abbrev);
            }
        }
    }
    if bc {
        s.push_str(" BC");
    }
    s
}

/// `Tue Jan 02 03:04:05 2024` (`Tue 02 Jan ...` with `DMY`), BC separate.
fn postgres_date_time(tm: &Tm, time: &str, order: DateOrder) -> (String, bool) {
    let (year, bc) = display_year(tm);
    let jd = calendar::date2j(tm.year, tm.month, tm.day);
    let weekday = WEEKDAYS[(jd + 1).rem_euclid(7) as usize];
    let month = MONTHS[(tm.month - 1) as usize];
    let day = tm.day;
    let s = match order {
        DateOrder::Dmy => format!("{weekday} {day:02} {month} {time} {year:04}"),
        _ => format!("{weekday} {month} {day:02} {time} {year:04}"),
    };
    (s, bc)
}

/// `+HH`, `+HH:MM` or `+HH:MM:SS` for an offset in seconds east.
pub fn offset_text(offset_secs: i32) -> String {
    let sign = if offset_secs < 0 { '-' } else { '+' };
    let abs = offset_secs.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
    if s != 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else if m != 0 {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}")
    }
}

/// `infinity`/`-infinity` for the sentinel timestamps.
fn infinite_text(ts: i64) -> Option<String> {
    match ts {
        i64::MIN => Some("-infinity".into()),
        i64::MAX => Some("infinity".into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{DateFormat, DateOrder};

    fn style(format: DateFormat, order: DateOrder) -> DateStyle {
        DateStyle { format, order }
    }

    /// 2024-01-02 03:04:05.5 as a timestamp.
    const TS: i64 = 757_479_845_500_000;

    #[test]
    fn every_date_style_matches_postgres() {
        use DateFormat::*;
        use DateOrder::*;
        let pst = Zone { offset_secs: -8 * 3600, abbrev: Some("PST") };
        let cases = [
            (Iso, Mdy, "2024-01-02", "2024-01-02 03:04:05.5", "2024-01-02 11:04:05.5-08"),
            (Sql, Mdy, "01/02/2024", "01/02/2024 03:04:05.5", "01/02/2024 11:04:05.5 PST"),
            (Sql, Dmy, "02/01/2024", "02/01/2024 03:04:05.5", "02/01/2024 11:04:05.5 PST"),
            (
                Postgres,
                Mdy,
                "01-02-2024",
                "Tue Jan 02 03:04:05.5 2024",
                "Tue Jan 02 11:04:05.5 2024 PST",
            ),
            (
                Postgres,
                Dmy,
                "02-01-2024",
                "Tue 02 Jan 03:04:05.5 2024",
                "Tue 02 Jan 11:04:05.5 2024 PST",
            ),
            (German, Mdy, "02.01.2024", "02.01.2024 03:04:05.5", "02.01.2024 11:04:05.5 PST"),
        ];
        for (format, order, date, ts, tz) in cases {
            let s = style(format, order);
            assert_eq!(date_out(8767, s), date, "{s:?}");
            assert_eq!(timestamp_out(TS, s), ts, "{s:?}");
            // 19:04:05.5 UTC is 11:04:05.5 in PST.
            assert_eq!(timestamptz_out(TS + 16 * 3_600_000_000, &pst, s), tz, "{s:?}");
        }
    }

    #[test]
    fn bc_years_and_zones_without_abbreviations() {
        let pg = style(DateFormat::Postgres, DateOrder::Mdy);
        // 0044-03-15 BC is astronomical year -43.
        let days = (calendar::date2j(-43, 3, 15) - calendar::POSTGRES_EPOCH_JDATE) as i32;
        assert_eq!(date_out(days, pg), "03-15-0044 BC");
        let ts = i64::from(days) * 86_400_000_000 + 36_000_000_000;
        assert_eq!(timestamp_out(ts, pg), "Fri Mar 15 10:00:00 0044 BC");
        let utc = Zone { offset_secs: 0, abbrev: Some("UTC") };
        assert_eq!(timestamptz_out(ts, &utc, pg), "Fri Mar 15 10:00:00 0044 UTC BC");
        let bare = Zone { offset_secs: -3 * 3600, abbrev: None };
        let sql = style(DateFormat::Sql, DateOrder::Mdy);
        assert_eq!(timestamptz_out(TS, &bare, sql), "01/02/2024 00:04:05.5 -03");
        assert_eq!(timestamp_out(i64::MAX, pg), "infinity");
    }
}
