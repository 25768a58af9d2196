//! Text output of dates and times in `DateStyle = ISO`.
//!
//! PostgreSQL prints `2024-01-15`, `10:30:00.5`, `2024-01-15 10:30:00` and,
//! for `timestamptz`, the session zone's offset as `+02`, `+05:30` or
//! `+00:53:28` (only as many fields as are non-zero). Fractional seconds drop
//! trailing zeros. Years before 1 AD print as `0044-03-15 BC`, with `BC` after
//! everything else; years beyond 9999 simply get more digits.

use super::calendar::{self, Tm, USECS_PER_SEC};

/// `2024-01-15` or `0044-03-15 BC` (the BC suffix is returned separately so
/// timestamps can place it after the time and zone).
fn date_part(tm: &Tm) -> (String, bool) {
    let bc = tm.year <= 0;
    let year = if bc { 1 - tm.year } else { tm.year };
    (format!("{:04}-{:02}-{:02}", year, tm.month, tm.day), bc)
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
pub fn date_out(days: i32) -> String {
    match days {
        i32::MIN => "-infinity".into(),
        i32::MAX => "infinity".into(),
        _ => {
            let (year, month, day) =
                calendar::j2date(i64::from(days) + calendar::POSTGRES_EPOCH_JDATE);
            let (s, bc) = date_part(&Tm { year, month, day, ..Tm::default() });
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
pub fn timestamp_out(ts: i64) -> String {
    if let Some(s) = infinite_text(ts) {
        return s;
    }
    let tm = calendar::timestamp2tm(ts);
    let (date, bc) = date_part(&tm);
    let mut s = format!("{date} {}", time_part(&tm));
    if bc {
        s.push_str(" BC");
    }
    s
}

/// Output of a `timestamptz` value in the zone with offset `offset_secs`
/// (seconds east of UTC) at that instant.
pub fn timestamptz_out(ts: i64, offset_secs: i32) -> String {
    if let Some(s) = infinite_text(ts) {
        return s;
    }
    let local = ts + i64::from(offset_secs) * USECS_PER_SEC;
    let tm = calendar::timestamp2tm(local);
    let (date, bc) = date_part(&tm);
    let mut s = format!("{date} {}{}", time_part(&tm), offset_text(offset_secs));
    if bc {
        s.push_str(" BC");
    }
    s
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
