//! `date_trunc`, `extract`/`date_part` and `age`.
//!
//! `extract` returns `numeric` since PostgreSQL 14, with fixed scales
//! (`second` has 6 decimals, `milliseconds` 3, `epoch` of a timestamp 6);
//! `date_part` is the same value as `double precision`. For infinite inputs
//! the monotonic fields (year, epoch, ...) are ±Infinity and the others NULL,
//! as in PostgreSQL 15. Unit names are matched as PostgreSQL's `DecodeUnits`
//! does, with its abbreviations, ignoring case.

use super::calendar::{self, Tm, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};
use super::input::{from_local, to_local};
use super::interval::Interval;
use crate::context::Context;
use crate::error::{ErrorKind, Result, TypeError};
use crate::numeric::{Numeric, NumericKind};
use crate::types::{format_type, SqlType};

/// Units of `date_trunc` and `extract`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateUnit {
    /// `microseconds`.
    Microseconds,
    /// `milliseconds`.
    Milliseconds,
    /// `second`.
    Second,
    /// `minute`.
    Minute,
    /// `hour`.
    Hour,
    /// `day`.
    Day,
    /// `week` (ISO).
    Week,
    /// `month`.
    Month,
    /// `quarter`.
    Quarter,
    /// `year`.
    Year,
    /// `decade`.
    Decade,
    /// `century`.
    Century,
    /// `millennium`.
    Millennium,
    /// `dow`: 0 = Sunday.
    Dow,
    /// `isodow`: 7 = Sunday.
    Isodow,
    /// `doy`.
    Doy,
    /// `epoch`.
    Epoch,
    /// `isoyear`.
    Isoyear,
    /// `julian`.
    Julian,
    /// `timezone`: offset in seconds east.
    Timezone,
    /// `timezone_hour`.
    TimezoneHour,
    /// `timezone_minute`.
    TimezoneMinute,
}

/// The unit `name` denotes (case-insensitive), if any.
pub fn parse_unit(name: &str) -> Option<DateUnit> {
    use DateUnit::*;
    Some(match name.to_ascii_lowercase().as_str() {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "useconds" | "microsecon" => {
            Microseconds
        }
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "mseconds" | "millisecon" => {
            Milliseconds
        }
        "second" | "seconds" | "s" | "sec" | "secs" => Second,
        "minute" | "minutes" | "m" | "min" | "mins" => Minute,
        "hour" | "hours" | "h" | "hr" | "hrs" => Hour,
        "day" | "days" | "d" => Day,
        "week" | "weeks" | "w" => Week,
        "month" | "months" | "mon" | "mons" => Month,
        "quarter" | "qtr" => Quarter,
        "year" | "years" | "y" | "yr" | "yrs" => Year,
        "decade" | "decades" | "dec" | "decs" => Decade,
        "century" | "centuries" | "c" | "cent" => Century,
        "millennium" | "millennia" | "mil" | "mils" => Millennium,
        "dow" => Dow,
        "isodow" => Isodow,
        "doy" => Doy,
        "epoch" => Epoch,
        "isoyear" => Isoyear,
        "julian" | "j" => Julian,
        "timezone" | "tz" => Timezone,
        "timezone_hour" | "timezone_h" => TimezoneHour,
        "timezone_minute" | "timezone_m" => TimezoneMinute,
        _ => return None,
    })
}

/// `unit "x" not recognized for type T` (22023).
fn unit_unknown(name: &str, ty: SqlType) -> TypeError {
    TypeError::invalid_parameter(format!(
        "unit \"{}\" not recognized for type {}",
        name.to_ascii_lowercase(),
        format_type(ty, -1)
    ))
}

/// `unit "x" not supported for type T` (0A000).
fn unit_unsupported(name: &str, ty: SqlType) -> TypeError {
    TypeError::new(
        ErrorKind::FeatureNotSupported,
        format!(
            "unit \"{}\" not supported for type {}",
            name.to_ascii_lowercase(),
            format_type(ty, -1)
        ),
    )
}

/// `date_trunc(unit, timestamp)`.
pub fn trunc_timestamp(unit_name: &str, ts: i64) -> Result<i64> {
    let unit = parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, SqlType::Timestamp))?;
    if super::arith::is_infinite(ts) {
        return Ok(ts);
    }
    let mut tm = calendar::timestamp2tm(ts);
    trunc_tm(&mut tm, unit).ok_or_else(|| unit_unknown(unit_name, SqlType::Timestamp))?;
    calendar::tm2timestamp(&tm).ok_or_else(super::arith::timestamp_range_error)
}

/// `date_trunc(unit, timestamptz)`, truncating in the session's local time.
pub fn trunc_timestamptz(unit_name: &str, ts: i64, ctx: &Context) -> Result<i64> {
    let unit =
        parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, SqlType::TimestampTz))?;
    if super::arith::is_infinite(ts) {
        return Ok(ts);
    }
    let mut tm = calendar::timestamp2tm(to_local(ts, ctx));
    trunc_tm(&mut tm, unit).ok_or_else(|| unit_unknown(unit_name, SqlType::TimestampTz))?;
    let local = calendar::tm2timestamp(&tm).ok_or_else(super::arith::timestamp_range_error)?;
    // Units below a day keep the original offset, as PostgreSQL does, so that
    // truncating to the hour never jumps across a DST change.
    if matches!(
        unit,
        DateUnit::Microseconds
            | DateUnit::Milliseconds
            | DateUnit::Second
            | DateUnit::Minute
            | DateUnit::Hour
    ) {
        return Ok(ts - (to_local(ts, ctx) - local));
    }
    Ok(from_local(local, ctx))
}

/// Zero the fields below `unit`; `None` for units `date_trunc` lacks.
fn trunc_tm(tm: &mut Tm, unit: DateUnit) -> Option<()> {
    use DateUnit::*;
    match unit {
        Millennium => {
            tm.year = if tm.year > 0 {
                (tm.year + 999) / 1000 * 1000 - 999
            } else {
                -((999 - (tm.year - 1)) / 1000) * 1000 + 1
            };
        }
        Century => {
            tm.year = if tm.year > 0 {
                (tm.year + 99) / 100 * 100 - 99
            } else {
                -((99 - (tm.year - 1)) / 100) * 100 + 1
            };
        }
        Decade => {
            // Decades count from year 0: 2020-2029; BC years round away from zero.
            tm.year =
                if tm.year > 0 { tm.year / 10 * 10 } else { -((8 - (tm.year - 1)) / 10) * 10 };
        }
        Week => {
            let jd = calendar::date2j(tm.year, tm.month, tm.day);
            let monday = jd - (calendar::j2day(jd) + 6) % 7;
            (tm.year, tm.month, tm.day) = calendar::j2date(monday);
            (tm.hour, tm.minute, tm.second, tm.usec) = (0, 0, 0, 0);
            return Some(());
        }
        Microseconds | Milliseconds | Second | Minute | Hour | Day | Month | Quarter | Year => {}
        _ => return None,
    }
    let level = match unit {
        Microseconds => 0,
        Milliseconds => 1,
        Second => 2,
        Minute => 3,
        Hour => 4,
        Day => 5,
        Month => 6,
        Quarter => 7,
        _ => 8,
    };
    if level >= 1 {
        tm.usec = tm.usec / 1000 * 1000;
    }
    if level >= 2 {
        tm.usec = 0;
    }
    if level >= 3 {
        tm.second = 0;
    }
    if level >= 4 {
        tm.minute = 0;
    }
    if level >= 5 {
        tm.hour = 0;
    }
    if level >= 6 {
        tm.day = 1;
    }
    if level == 7 {
        tm.month = (tm.month - 1) / 3 * 3 + 1;
    }
    if level >= 8 {
        tm.month = 1;
    }
    Some(())
}

/// `date_trunc(unit, interval)`.
pub fn trunc_interval(unit_name: &str, iv: &Interval) -> Result<Interval> {
    use DateUnit::*;
    let unit = parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, SqlType::Interval))?;
    let years = iv.months / 12;
    let keep_months = |m: i32| Interval::new(m, 0, 0);
    let time = |unit_us: i64| Interval::new(iv.months, iv.days, iv.micros / unit_us * unit_us);
    Ok(match unit {
        Millennium => keep_months(years / 1000 * 1000 * 12),
        Century => keep_months(years / 100 * 100 * 12),
        Decade => keep_months(years / 10 * 10 * 12),
        Year => keep_months(years * 12),
        Quarter => keep_months(years * 12 + (iv.months % 12) / 3 * 3),
        Month => keep_months(iv.months),
        Day => Interval::new(iv.months, iv.days, 0),
        Hour => time(USECS_PER_HOUR),
        Minute => time(USECS_PER_MINUTE),
        Second => time(USECS_PER_SEC),
        Milliseconds => time(1000),
        Microseconds => *iv,
        _ => return Err(unit_unsupported(unit_name, SqlType::Interval)),
    })
}

/// An integer as numeric.
fn int(v: i64) -> Numeric {
    Numeric::from_i64(v)
}

/// `v / 10^scale` as numeric with exactly `scale` decimals (wide enough for
/// a timestamp's distance from another epoch).
fn scaled(v: impl Into<i128>, scale: i32) -> Numeric {
    let v: i128 = v.into();
    let text = format!("{v}e-{scale}");
    crate::numeric::parse(&text, -1).unwrap_or_else(|_| Numeric::nan())
}

/// The year as `extract` reports it: no year zero, 1 BC is -1.
fn sql_year(year: i64) -> i64 {
    if year > 0 {
        year
    } else {
        year - 1
    }
}

/// Fields of a date, shared by dates and timestamps.
fn date_field(tm: &Tm, unit: DateUnit) -> Option<Numeric> {
    use DateUnit::*;
    let y = tm.year;
    Some(int(match unit {
        Day => tm.day,
        Month => tm.month,
        Quarter => (tm.month - 1) / 3 + 1,
        Week => calendar::iso_week(y, tm.month, tm.day),
        Year => sql_year(y),
        Decade => {
            if y >= 0 {
                y / 10
            } else {
                -((8 - (y - 1)) / 10)
            }
        }
        Century => {
            if y > 0 {
                (y + 99) / 100
            } else {
                -((99 - (y - 1)) / 100)
            }
        }
        Millennium => {
            if y > 0 {
                (y + 999) / 1000
            } else {
                -((999 - (y - 1)) / 1000)
            }
        }
        Isoyear => sql_year(calendar::iso_year(y, tm.month, tm.day)),
        Dow => calendar::j2day(calendar::date2j(y, tm.month, tm.day)),
        Isodow => match calendar::j2day(calendar::date2j(y, tm.month, tm.day)) {
            0 => 7,
            d => d,
        },
        Doy => calendar::date2j(y, tm.month, tm.day) - calendar::date2j(y, 1, 1) + 1,
        _ => return None,
    }))
}

/// The value of a monotonic unit at ±infinity, or NULL for the others.
fn infinite_part(unit: DateUnit, positive: bool) -> Option<Numeric> {
    use DateUnit::*;
    match unit {
        Year | Decade | Century | Millennium | Julian | Isoyear | Epoch => {
            Some(Numeric::special(if positive { NumericKind::PosInf } else { NumericKind::NegInf }))
        }
        _ => None,
    }
}

/// `extract(unit from timestamp)`; `Ok(None)` is SQL NULL.
pub fn extract_timestamp(unit_name: &str, ts: i64) -> Result<Option<Numeric>> {
    extract_ts_common(unit_name, ts, None)
}

/// `extract(unit from timestamptz)` in the session zone.
pub fn extract_timestamptz(unit_name: &str, ts: i64, ctx: &Context) -> Result<Option<Numeric>> {
    let offset = if super::arith::is_infinite(ts) {
        0
    } else {
        ctx.time_zone.offset_at_utc(ts.div_euclid(USECS_PER_SEC))
    };
    extract_ts_common(unit_name, ts, Some((offset, to_local(ts, ctx))))
}

/// Shared body of the timestamp extracts; `tz` is (offset, local time).
fn extract_ts_common(unit_name: &str, ts: i64, tz: Option<(i32, i64)>) -> Result<Option<Numeric>> {
    use DateUnit::*;
    let ty = if tz.is_some() { SqlType::TimestampTz } else { SqlType::Timestamp };
    let unit = parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, ty))?;
    if super::arith::is_infinite(ts) {
        return Ok(infinite_part(unit, ts == i64::MAX));
    }
    let local = tz.map_or(ts, |(_, l)| l);
    let tm = calendar::timestamp2tm(local);
    let sec_us = tm.second * USECS_PER_SEC + tm.usec;
    let epoch_offset =
        (calendar::UNIX_EPOCH_JDATE - calendar::POSTGRES_EPOCH_JDATE) * USECS_PER_DAY;
    if let Some(v) = date_field(&tm, unit) {
        return Ok(Some(v));
    }
    let v = match (unit, tz) {
        (Microseconds, _) => int(sec_us),
        (Milliseconds, _) => scaled(sec_us, 3),
        (Second, _) => scaled(sec_us, 6),
        (Minute, _) => int(tm.minute),
        (Hour, _) => int(tm.hour),
        (Epoch, _) => scaled(i128::from(ts) - i128::from(epoch_offset), 6),
        (Julian, _) => {
            let day_us = calendar::tm2time(&tm);
            int(calendar::date2j(tm.year, tm.month, tm.day))
                .add(&int(day_us).div(&int(USECS_PER_DAY))?)?
        }
        (Timezone, Some((off, _))) => int(off.into()),
        (TimezoneHour, Some((off, _))) => int((off / 3600).into()),
        (TimezoneMinute, Some((off, _))) => int((off / 60 % 60).into()),
        _ => return Err(unit_unsupported(unit_name, ty)),
    };
    Ok(Some(v))
}

/// `extract(unit from date)`; `Ok(None)` is SQL NULL.
pub fn extract_date(unit_name: &str, date: i32) -> Result<Option<Numeric>> {
    let unit = parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, SqlType::Date))?;
    if date == i32::MIN || date == i32::MAX {
        return Ok(infinite_part(unit, date == i32::MAX));
    }
    let jd = i64::from(date) + calendar::POSTGRES_EPOCH_JDATE;
    let (year, month, day) = calendar::j2date(jd);
    let tm = Tm { year, month, day, ..Tm::default() };
    if let Some(v) = date_field(&tm, unit) {
        return Ok(Some(v));
    }
    match unit {
        DateUnit::Julian => Ok(Some(int(jd))),
        DateUnit::Epoch => Ok(Some(int((jd - calendar::UNIX_EPOCH_JDATE) * 86400))),
        _ => Err(unit_unsupported(unit_name, SqlType::Date)),
    }
}

/// `extract(unit from time)`.
pub fn extract_time(unit_name: &str, time: i64) -> Result<Numeric> {
    use DateUnit::*;
    let unit = parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, SqlType::Time))?;
    let tm = calendar::time2tm(time);
    let sec_us = tm.second * USECS_PER_SEC + tm.usec;
    Ok(match unit {
        Microseconds => int(sec_us),
        Milliseconds => scaled(sec_us, 3),
        Second => scaled(sec_us, 6),
        Minute => int(tm.minute),
        Hour => int(tm.hour),
        Epoch => scaled(time, 6),
        _ => return Err(unit_unsupported(unit_name, SqlType::Time)),
    })
}

/// `extract(unit from interval)`.
pub fn extract_interval(unit_name: &str, iv: &Interval) -> Result<Numeric> {
    use DateUnit::*;
    let unit = parse_unit(unit_name).ok_or_else(|| unit_unknown(unit_name, SqlType::Interval))?;
    let years = i64::from(iv.months / 12);
    let months = i64::from(iv.months % 12);
    let sec_us = iv.micros % USECS_PER_MINUTE;
    Ok(match unit {
        Microseconds => int(sec_us),
        Milliseconds => scaled(sec_us, 3),
        Second => scaled(sec_us, 6),
        Minute => int(iv.micros / USECS_PER_MINUTE % 60),
        Hour => int(iv.micros / USECS_PER_HOUR),
        Day => int(iv.days.into()),
        Month => int(months),
        Quarter => int(months / 3 + 1),
        Year => int(years),
        Decade => int(years / 10),
        Century => int(years / 100),
        Millennium => int(years / 1000),
        Epoch => {
            // 365.25 days per year, 30 per month, as PostgreSQL.
            let quarter_days = 1461 * years + 120 * months + 4 * i64::from(iv.days);
            let secs_from_days = i128::from(quarter_days) * 86400 / 4;
            let total = secs_from_days * i128::from(USECS_PER_SEC) + i128::from(iv.micros);
            Numeric::from_i128(total).div_scaled(&int(USECS_PER_SEC), 6)?
        }
        _ => return Err(unit_unsupported(unit_name, SqlType::Interval)),
    })
}

/// `age(a, b)` for timestamps: the symbolic difference in years, months,
/// days and time, borrowing from the earlier month's length.
pub fn age_timestamp(a: i64, b: i64) -> Result<Interval> {
    if super::arith::is_infinite(a) || super::arith::is_infinite(b) {
        return Err(super::arith::timestamp_range_error());
    }
    Ok(age_tm(&calendar::timestamp2tm(a), &calendar::timestamp2tm(b), a < b))
}

/// `age(a, b)` for `timestamptz`, computed on session-local times.
pub fn age_timestamptz(a: i64, b: i64, ctx: &Context) -> Result<Interval> {
    if super::arith::is_infinite(a) || super::arith::is_infinite(b) {
        return Err(super::arith::timestamp_range_error());
    }
    let (la, lb) = (to_local(a, ctx), to_local(b, ctx));
    Ok(age_tm(&calendar::timestamp2tm(la), &calendar::timestamp2tm(lb), a < b))
}

/// PostgreSQL's `timestamp_age` on broken-down times.
fn age_tm(t1: &Tm, t2: &Tm, flip: bool) -> Interval {
    let sign = if flip { -1 } else { 1 };
    let mut usec = sign * (t1.usec - t2.usec);
    let mut sec = sign * (t1.second - t2.second);
    let mut min = sign * (t1.minute - t2.minute);
    let mut hour = sign * (t1.hour - t2.hour);
    let mut day = sign * (t1.day - t2.day);
    let mut mon = sign * (t1.month - t2.month);
    let mut year = sign * (t1.year - t2.year);
    while usec < 0 {
        usec += USECS_PER_SEC;
        sec -= 1;
    }
    while sec < 0 {
        sec += 60;
        min -= 1;
    }
    while min < 0 {
        min += 60;
        hour -= 1;
    }
    while hour < 0 {
        hour += 24;
        day -= 1;
    }
    // Borrow the length of the earlier timestamp's month.
    let borrow_from = if flip { t1 } else { t2 };
    while day < 0 {
        day += calendar::days_in_month(borrow_from.year, borrow_from.month);
        mon -= 1;
    }
    while mon < 0 {
        mon += 12;
        year -= 1;
    }
    let months = sign * (year * 12 + mon);
    let micros = sign * (((hour * 60 + min) * 60 + sec) * USECS_PER_SEC + usec);
    Interval::new(months as i32, (sign * day) as i32, micros)
}

/// `age(timestamp)`: age relative to midnight of the current date.
pub fn age_from_today(ts: i64, ctx: &Context) -> Result<Interval> {
    let today = i64::from(super::input::local_date(ctx.now, ctx)) * USECS_PER_DAY;
    age_timestamp(today, ts)
}

/// `age(timestamptz)`: age relative to local midnight of the current date.
pub fn age_from_today_tz(ts: i64, ctx: &Context) -> Result<Interval> {
    let today = from_local(i64::from(super::input::local_date(ctx.now, ctx)) * USECS_PER_DAY, ctx);
    age_timestamptz(today, ts, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_of_the_last_timestamps_does_not_overflow() {
        // date_part('epoch', '294270-01-01 00:00:00'::timestamp) is
        // 9224097091200 in PostgreSQL 15.
        let days = calendar::date2j(294_270, 1, 1) - calendar::POSTGRES_EPOCH_JDATE;
        let epoch = extract_timestamp("epoch", days * USECS_PER_DAY).unwrap().unwrap();
        assert_eq!(epoch.to_string(), "9224097091200.000000");
    }
}
