//! Date and timestamp arithmetic and conversions between the date/time types.
//!
//! Adding an interval works field by field, as PostgreSQL's
//! `timestamp_pl_interval`: first the months move the calendar month
//! (clamping the day to the new month's length: Jan 31 + 1 month = Feb 29 in
//! a leap year), then the days move the date, then the microseconds move the
//! clock. For `timestamptz` the month and day steps happen in the session's
//! local time, so `+ 1 day` across a daylight-saving change keeps the wall
//! clock time; only the microsecond step is pure elapsed time.
//!
//! Infinite dates and timestamps stay infinite under addition; subtracting two
//! infinities is an error, as in PostgreSQL.

use super::calendar::{self, Tm, POSTGRES_EPOCH_JDATE, USECS_PER_DAY};
use super::input::{from_local, to_local};
use super::interval::Interval;
use crate::context::Context;
use crate::error::{ErrorKind, Result, TypeError};

/// `timestamp out of range` (22008).
pub fn timestamp_range_error() -> TypeError {
    TypeError::new(ErrorKind::DatetimeFieldOverflow, "timestamp out of range")
}

/// `date out of range` (22008).
pub fn date_range_error() -> TypeError {
    TypeError::new(ErrorKind::DatetimeFieldOverflow, "date out of range")
}

/// Whether a timestamp is ±infinity.
pub fn is_infinite(ts: i64) -> bool {
    ts == i64::MIN || ts == i64::MAX
}

/// `date + integer`.
pub fn date_add_days(date: i32, days: i64) -> Result<i32> {
    if date == i32::MIN || date == i32::MAX {
        return Ok(date);
    }
    let jd = i64::from(date) + days + POSTGRES_EPOCH_JDATE;
    if !calendar::is_valid_julian_date(jd) {
        return Err(date_range_error());
    }
    Ok((jd - POSTGRES_EPOCH_JDATE) as i32)
}

/// `date - date`, in days.
pub fn date_diff(a: i32, b: i32) -> Result<i32> {
    let infinite = |d: i32| d == i32::MIN || d == i32::MAX;
    if infinite(a) || infinite(b) {
        return Err(TypeError::new(
            ErrorKind::DatetimeFieldOverflow,
            "cannot subtract infinite dates",
        ));
    }
    Ok(a - b)
}

/// `date::timestamp`: midnight of the date.
pub fn date_to_timestamp(date: i32) -> Result<i64> {
    match date {
        i32::MIN => Ok(i64::MIN),
        i32::MAX => Ok(i64::MAX),
        _ => {
            let ts = i64::from(date).checked_mul(USECS_PER_DAY);
            let Some(ts) = ts.filter(|&ts| calendar::is_valid_timestamp(ts)) else {
                return Err(TypeError::new(
                    ErrorKind::DatetimeFieldOverflow,
                    "date out of range for timestamp",
                ));
            };
            Ok(ts)
        }
    }
}

/// `date::timestamptz`: local midnight of the date in the session zone.
pub fn date_to_timestamptz(date: i32, ctx: &Context) -> Result<i64> {
    Ok(from_local(date_to_timestamp(date)?, ctx))
}

/// `timestamp::date`.
pub fn timestamp_to_date(ts: i64) -> i32 {
    match ts {
        i64::MIN => i32::MIN,
        i64::MAX => i32::MAX,
        _ => ts.div_euclid(USECS_PER_DAY) as i32,
    }
}

/// `timestamptz::date`, in the session zone.
pub fn timestamptz_to_date(ts: i64, ctx: &Context) -> i32 {
    timestamp_to_date(to_local(ts, ctx))
}

/// `timestamp::time`.
pub fn timestamp_to_time(ts: i64) -> Option<i64> {
    (!is_infinite(ts)).then(|| ts.rem_euclid(USECS_PER_DAY))
}

/// `timestamp::timestamptz`: interpret as local time in the session zone.
pub fn timestamp_to_timestamptz(ts: i64, ctx: &Context) -> Result<i64> {
    let utc = from_local(ts, ctx);
    if !is_infinite(utc) && !calendar::is_valid_timestamp(utc) {
        return Err(timestamp_range_error());
    }
    Ok(utc)
}

/// `timestamptz::timestamp`: the session-local wall-clock time.
pub fn timestamptz_to_timestamp(ts: i64, ctx: &Context) -> Result<i64> {
    let local = to_local(ts, ctx);
    if !is_infinite(local) && !calendar::is_valid_timestamp(local) {
        return Err(timestamp_range_error());
    }
    Ok(local)
}

/// `timestamp + interval` (wall-clock arithmetic).
pub fn timestamp_add_interval(ts: i64, iv: &Interval) -> Result<i64> {
    if is_infinite(ts) {
        return Ok(ts);
    }
    let mut ts = ts;
    if iv.months != 0 || iv.days != 0 {
        let mut tm = calendar::timestamp2tm(ts);
        add_months_days(&mut tm, iv)?;
        ts = calendar::tm2timestamp(&tm).ok_or_else(timestamp_range_error)?;
    }
    let ts = ts.checked_add(iv.micros).ok_or_else(timestamp_range_error)?;
    if !calendar::is_valid_timestamp(ts) {
        return Err(timestamp_range_error());
    }
    Ok(ts)
}

/// `timestamptz + interval`: months and days in session-local time.
pub fn timestamptz_add_interval(ts: i64, iv: &Interval, ctx: &Context) -> Result<i64> {
    if is_infinite(ts) {
        return Ok(ts);
    }
    let mut ts = ts;
    if iv.months != 0 || iv.days != 0 {
        let mut tm = calendar::timestamp2tm(to_local(ts, ctx));
        add_months_days(&mut tm, iv)?;
        ts = from_local(calendar::tm2timestamp(&tm).ok_or_else(timestamp_range_error)?, ctx);
    }
    let ts = ts.checked_add(iv.micros).ok_or_else(timestamp_range_error)?;
    if !calendar::is_valid_timestamp(ts) {
        return Err(timestamp_range_error());
    }
    Ok(ts)
}

/// Move a broken-down date by the interval's months (clamping the day to the
/// month's length) and then its days.
fn add_months_days(tm: &mut Tm, iv: &Interval) -> Result<()> {
    if iv.months != 0 {
        let total = tm.year * 12 + (tm.month - 1) + i64::from(iv.months);
        tm.year = total.div_euclid(12);
        tm.month = total.rem_euclid(12) + 1;
        tm.day = tm.day.min(calendar::days_in_month(tm.year, tm.month));
    }
    if iv.days != 0 {
        let jd = calendar::date2j(tm.year, tm.month, tm.day) + i64::from(iv.days);
        if !calendar::is_valid_julian_date(jd) {
            return Err(timestamp_range_error());
        }
        (tm.year, tm.month, tm.day) = calendar::j2date(jd);
    }
    Ok(())
}

/// `timestamp - timestamp` (either kind): an interval of days and time.
pub fn timestamp_diff(a: i64, b: i64) -> Result<Interval> {
    if is_infinite(a) || is_infinite(b) {
        return Err(TypeError::new(
            ErrorKind::DatetimeFieldOverflow,
            "cannot subtract infinite timestamps",
        ));
    }
    let micros = a.checked_sub(b).ok_or_else(super::interval::interval_range_error)?;
    Ok(Interval::new(0, 0, micros).justify_hours())
}

/// `time + interval` (wraps around midnight; months and days are ignored).
pub fn time_add_interval(time: i64, iv: &Interval) -> i64 {
    (time + iv.micros % USECS_PER_DAY).rem_euclid(USECS_PER_DAY)
}

/// `time - time`: an interval of microseconds.
pub fn time_diff(a: i64, b: i64) -> Interval {
    Interval::new(0, 0, a - b)
}

/// `date + time`: a timestamp.
pub fn date_add_time(date: i32, time: i64) -> Result<i64> {
    let ts = date_to_timestamp(date)?;
    if is_infinite(ts) {
        return Ok(ts);
    }
    let ts = ts + time;
    if !calendar::is_valid_timestamp(ts) {
        return Err(timestamp_range_error());
    }
    Ok(ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_beyond_the_timestamp_range_is_an_error_not_an_overflow() {
        // '2202020-10-05'::date::timestamp, from PostgreSQL's horology test.
        let date = 2_202_020 * 365;
        let err = date_to_timestamp(date).unwrap_err();
        assert_eq!(err.message, "date out of range for timestamp");
        assert_eq!(date_to_timestamp(0), Ok(0));
    }
}
