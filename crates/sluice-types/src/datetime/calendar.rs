//! Calendar arithmetic: Julian day numbers and broken-down times.
//!
//! Like PostgreSQL, sluice counts dates as Julian day numbers on the proleptic
//! Gregorian calendar and uses astronomical year numbering internally (year 0
//! is 1 BC, year -1 is 2 BC); only input and output speak of "BC". Dates are
//! stored relative to 2000-01-01 (Julian day 2451545), timestamps as
//! microseconds from 2000-01-01 00:00:00.
//!
//! The day-count conversion is the well-known era-based algorithm for the
//! proleptic Gregorian calendar (exact for any year an `i64` can hold).

/// Microseconds per second.
pub const USECS_PER_SEC: i64 = 1_000_000;
/// Microseconds per minute.
pub const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
/// Microseconds per hour.
pub const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
/// Microseconds per day.
pub const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
/// Julian day number of 2000-01-01, the epoch of `date` and `timestamp`.
pub const POSTGRES_EPOCH_JDATE: i64 = 2_451_545;
/// Julian day number of 1970-01-01, the Unix epoch.
pub const UNIX_EPOCH_JDATE: i64 = 2_440_588;
/// First valid Julian day (4714-11-24 BC).
pub const JULIAN_MIN: i64 = 0;
/// First Julian day past the `date` range (5874898-01-01).
pub const DATE_END_JULIAN: i64 = 2_147_483_494;
/// First Julian day past the `timestamp` range (294277-01-01).
pub const TIMESTAMP_END_JULIAN: i64 = 109_203_528;
/// Smallest valid timestamp (4714-11-24 00:00:00 BC).
pub const MIN_TIMESTAMP: i64 = -211_813_488_000_000_000;
/// First timestamp past the valid range (294277-01-01 00:00:00).
pub const END_TIMESTAMP: i64 = 9_223_371_331_200_000_000;

/// A broken-down date and time of day (PostgreSQL's `struct pg_tm` + fsec).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Tm {
    /// Astronomical year (0 = 1 BC).
    pub year: i64,
    /// Month, 1-12.
    pub month: i64,
    /// Day of month, 1-31.
    pub day: i64,
    /// Hour, 0-23 (24 only for `time '24:00'`).
    pub hour: i64,
    /// Minute, 0-59.
    pub minute: i64,
    /// Second, 0-59.
    pub second: i64,
    /// Microseconds within the second.
    pub usec: i64,
}

/// Whether `year` (astronomical) is a Gregorian leap year.
pub fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` of `year`.
pub fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Julian day number of a Gregorian date.
pub fn date2j(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + UNIX_EPOCH_JDATE
}

/// Gregorian date of a Julian day number: (year, month, day).
pub fn j2date(jd: i64) -> (i64, i64, i64) {
    let z = jd - UNIX_EPOCH_JDATE + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Day of week of a Julian day: 0 = Sunday .. 6 = Saturday.
pub fn j2day(jd: i64) -> i64 {
    (jd + 1).rem_euclid(7)
}

/// Split microseconds since 2000-01-01 into a broken-down time.
pub fn timestamp2tm(ts: i64) -> Tm {
    let days = ts.div_euclid(USECS_PER_DAY);
    let time = ts.rem_euclid(USECS_PER_DAY);
    let (year, month, day) = j2date(days + POSTGRES_EPOCH_JDATE);
    let mut tm = time2tm(time);
    tm.year = year;
    tm.month = month;
    tm.day = day;
    tm
}

/// Split microseconds since midnight into hour/minute/second/usec.
pub fn time2tm(time: i64) -> Tm {
    Tm {
        hour: time / USECS_PER_HOUR,
        minute: time / USECS_PER_MINUTE % 60,
        second: time / USECS_PER_SEC % 60,
        usec: time % USECS_PER_SEC,
        ..Tm::default()
    }
}

/// Microseconds since 2000-01-01 of a broken-down time, or `None` if it is
/// outside the timestamp range.
pub fn tm2timestamp(tm: &Tm) -> Option<i64> {
    let days = date2j(tm.year, tm.month, tm.day) - POSTGRES_EPOCH_JDATE;
    let time = tm2time(tm);
    let ts = days.checked_mul(USECS_PER_DAY)?.checked_add(time)?;
    is_valid_timestamp(ts).then_some(ts)
}

/// Microseconds since midnight of the time-of-day part.
pub fn tm2time(tm: &Tm) -> i64 {
    ((tm.hour * 60 + tm.minute) * 60 + tm.second) * USECS_PER_SEC + tm.usec
}

/// Whether a finite timestamp is within PostgreSQL's range.
pub fn is_valid_timestamp(ts: i64) -> bool {
    (MIN_TIMESTAMP..END_TIMESTAMP).contains(&ts)
}

/// Whether a Julian day is within the `date` range.
pub fn is_valid_julian_date(jd: i64) -> bool {
    (JULIAN_MIN..DATE_END_JULIAN).contains(&jd)
}

/// ISO 8601 week number (1-53) of a date.
pub fn iso_week(year: i64, month: i64, day: i64) -> i64 {
    let jd = date2j(year, month, day);
    let (iso_year, _) = iso_year_start(jd);
    (jd - iso_year) / 7 + 1
}

/// ISO 8601 week-numbering year of a date.
pub fn iso_year(year: i64, month: i64, day: i64) -> i64 {
    let jd = date2j(year, month, day);
    iso_year_start(jd).1
}

/// The Julian day of the Monday starting the ISO year containing `jd`, and
/// that ISO year.
fn iso_year_start(jd: i64) -> (i64, i64) {
    let (year, _, _) = j2date(jd);
    for y in [year + 1, year, year - 1] {
        let start = week1_monday(y);
        if jd >= start {
            return (start, y);
        }
    }
    (week1_monday(year - 1), year - 1)
}

/// Julian day of the Monday of ISO week 1 of `year` (the week with Jan 4th).
fn week1_monday(year: i64) -> i64 {
    let jan4 = date2j(year, 1, 4);
    // j2day: 0 = Sunday; ISO weeks start on Monday.
    jan4 - (j2day(jan4) + 6) % 7
}
