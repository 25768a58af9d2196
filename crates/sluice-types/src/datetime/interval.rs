//! `interval`: months, days and microseconds, kept apart.
//!
//! An interval is three independent counts because their lengths are not
//! fixed: a month is 28 to 31 days, a day 23 to 25 hours across daylight-saving
//! changes. Adding `1 month` to a timestamp moves the calendar month; adding
//! `30 days` moves the day count; they are different intervals that compare
//! equal, because comparison (and hashing) uses PostgreSQL's fixed conversion
//! of 30 days per month and 24 hours per day.
//!
//! Input accepts PostgreSQL's verbose syntax (`1 year 2 mons 3 days 04:05:06`,
//! `@ 1 hour ago`, fractional units cascading down: `1.5 months` is 1 month
//! 15 days) and ISO 8601 durations (`P1Y2M3DT4H5M6S`). Output is
//! `IntervalStyle = postgres`: `1 year 2 mons 3 days 04:05:06`,
//! `-1 days +02:00:00`.

use super::calendar::{USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};
use super::lex::{self, Field};
use crate::error::{ErrorKind, Result, TypeError};

/// Days per month in interval arithmetic and comparison.
pub const DAYS_PER_MONTH: i64 = 30;

/// A span of time (PostgreSQL's `Interval`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Interval {
    /// Months (years are 12 months).
    pub months: i32,
    /// Days.
    pub days: i32,
    /// Microseconds.
    pub micros: i64,
}

/// `interval out of range` (22008).
pub fn interval_range_error() -> TypeError {
    TypeError::new(ErrorKind::DatetimeFieldOverflow, "interval out of range")
}

impl Interval {
    /// An interval of the given parts.
    pub fn new(months: i32, days: i32, micros: i64) -> Interval {
        Interval { months, days, micros }
    }

    /// The comparison key: everything converted to microseconds with 30-day
    /// months and 24-hour days (PostgreSQL's `interval_cmp_value`).
    pub fn cmp_key(&self) -> i128 {
        let days = i128::from(self.months) * i128::from(DAYS_PER_MONTH) + i128::from(self.days);
        days * i128::from(USECS_PER_DAY) + i128::from(self.micros)
    }

    /// `self + other`, field by field.
    pub fn add(&self, other: &Interval) -> Result<Interval> {
        Ok(Interval {
            months: self.months.checked_add(other.months).ok_or_else(interval_range_error)?,
            days: self.days.checked_add(other.days).ok_or_else(interval_range_error)?,
            micros: self.micros.checked_add(other.micros).ok_or_else(interval_range_error)?,
        })
    }

    /// `self - other`, field by field.
    pub fn sub(&self, other: &Interval) -> Result<Interval> {
        self.add(&other.neg()?)
    }

    /// Unary minus.
    pub fn neg(&self) -> Result<Interval> {
        Ok(Interval {
            months: self.months.checked_neg().ok_or_else(interval_range_error)?,
            days: self.days.checked_neg().ok_or_else(interval_range_error)?,
            micros: self.micros.checked_neg().ok_or_else(interval_range_error)?,
        })
    }

    /// `self * factor`: fractional months cascade into days and fractional
    /// days into time, as PostgreSQL's `interval_mul`.
    pub fn mul(&self, factor: f64) -> Result<Interval> {
        self.scale(|v| v * factor)
    }

    /// `self / divisor`, as PostgreSQL's `interval_div` (which divides rather
    /// than multiplying by the reciprocal, so results differ in the last bit).
    pub fn div(&self, divisor: f64) -> Result<Interval> {
        if divisor == 0.0 {
            return Err(TypeError::division_by_zero());
        }
        self.scale(|v| v / divisor)
    }

    /// Apply `f` (multiply or divide by a factor) to each field, cascading
    /// fractions down: month fractions to days (rounded to microsecond
    /// precision), day fractions to seconds.
    fn scale(&self, f: impl Fn(f64) -> f64) -> Result<Interval> {
        let months_f = f(f64::from(self.months));
        let days_f = f(f64::from(self.days));
        let fits_i32 = |v: f64| !v.is_nan() && v >= f64::from(i32::MIN) && v < -f64::from(i32::MIN);
        if !fits_i32(months_f) || !fits_i32(days_f) {
            return Err(interval_range_error());
        }
        let months = months_f as i32;
        let mut days = days_f as i32;
        let month_rem_days = tsround((months_f - f64::from(months)) * DAYS_PER_MONTH as f64);
        let mut sec_rem =
            tsround((days_f - f64::from(days) + month_rem_days - month_rem_days.trunc()) * 86400.0);
        if sec_rem.abs() >= 86400.0 {
            let extra = (sec_rem / 86400.0).trunc();
            days += extra as i32;
            sec_rem -= extra * 86400.0;
        }
        days = days.checked_add(month_rem_days as i32).ok_or_else(interval_range_error)?;
        let micros = (f(self.micros as f64) + sec_rem * 1e6).round_ties_even();
        if micros.is_nan() || micros < i64::MIN as f64 || micros >= -(i64::MIN as f64) {
            return Err(interval_range_error());
        }
        Ok(Interval { months, days, micros: micros as i64 })
    }

    /// PostgreSQL's `interval_justify_hours`: whole days out of the time part,
    /// with the time taking the sign of the days.
    pub fn justify_hours(&self) -> Interval {
        let mut days = i64::from(self.days) + self.micros / USECS_PER_DAY;
        let mut micros = self.micros % USECS_PER_DAY;
        if days > 0 && micros < 0 {
            micros += USECS_PER_DAY;
            days -= 1;
        } else if days < 0 && micros > 0 {
            micros -= USECS_PER_DAY;
            days += 1;
        }
        Interval {
            months: self.months,
            days: days.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            micros,
        }
    }
}

/// Round to microsecond precision in floating point (PostgreSQL's TSROUND).
fn tsround(v: f64) -> f64 {
    (v * 1e6).round_ties_even() / 1e6
}

/// Accumulated fields while parsing.
#[derive(Default)]
struct Acc {
    months: f64,
    days: f64,
    micros: f64,
    seen_any: bool,
}

impl Acc {
    /// Add `value` units, cascading fractions down like PostgreSQL.
    fn add_unit(&mut self, value: f64, unit: Unit) {
        self.seen_any = true;
        match unit {
            Unit::Micro => self.micros += value,
            Unit::Milli => self.micros += value * 1e3,
            Unit::Second => self.micros += value * 1e6,
            Unit::Minute => self.micros += value * USECS_PER_MINUTE as f64,
            Unit::Hour => self.micros += value * USECS_PER_HOUR as f64,
            Unit::Day => self.add_days(value),
            Unit::Week => self.add_days(value * 7.0),
            Unit::Month => self.add_months(value),
            Unit::Year => self.add_years(value, 1.0),
            Unit::Decade => self.add_years(value, 10.0),
            Unit::Century => self.add_years(value, 100.0),
            Unit::Millennium => self.add_years(value, 1000.0),
        }
    }

    /// Whole days, with any fraction becoming time.
    fn add_days(&mut self, v: f64) {
        self.days += v.trunc();
        self.micros += v.fract() * USECS_PER_DAY as f64;
    }

    /// Whole months, with any fraction becoming days (30 per month).
    fn add_months(&mut self, v: f64) {
        self.months += v.trunc();
        self.add_days(v.fract() * DAYS_PER_MONTH as f64);
    }

    /// Years, with the fraction becoming whole months only (as PostgreSQL).
    fn add_years(&mut self, v: f64, scale: f64) {
        self.months += (v * scale).trunc() * 12.0 + ((v * scale).fract() * 12.0).trunc();
    }
}

/// Interval units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Micro,
    Milli,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
    Decade,
    Century,
    Millennium,
}

/// The unit a word names, PostgreSQL's spellings and abbreviations.
fn unit_of(word: &str) -> Option<Unit> {
    Some(match word {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "useconds" => Unit::Micro,
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "mseconds" => Unit::Milli,
        "second" | "seconds" | "s" | "sec" | "secs" => Unit::Second,
        "minute" | "minutes" | "m" | "min" | "mins" => Unit::Minute,
        "hour" | "hours" | "h" | "hr" | "hrs" => Unit::Hour,
        "day" | "days" | "d" => Unit::Day,
        "week" | "weeks" | "w" => Unit::Week,
        "month" | "months" | "mon" | "mons" => Unit::Month,
        "year" | "years" | "y" | "yr" | "yrs" => Unit::Year,
        "decade" | "decades" | "dec" | "decs" => Unit::Decade,
        "century" | "centuries" | "c" | "cent" => Unit::Century,
        "millennium" | "millennia" | "mil" | "mils" => Unit::Millennium,
        _ => return None,
    })
}

/// Parse interval text.
pub fn parse(input: &str) -> Result<Interval> {
    let bad = || {
        TypeError::new(
            ErrorKind::InvalidDatetimeFormat,
            format!("invalid input syntax for type interval: \"{input}\""),
        )
    };
    let trimmed = input.trim();
    let acc = if trimmed.len() > 1 && (trimmed.starts_with('P') || trimmed.starts_with('p')) {
        parse_iso(&trimmed[1..]).ok_or_else(bad)?
    } else {
        parse_verbose(input).ok_or_else(bad)?
    };
    finish(acc).ok_or_else(|| {
        TypeError::new(
            ErrorKind::IntervalFieldOverflow,
            format!("interval field value out of range: \"{input}\""),
        )
    })
}

/// Convert accumulated fields to an interval, `None` on overflow.
fn finish(acc: Acc) -> Option<Interval> {
    let fits = |v: f64, lo: f64, hi: f64| !v.is_nan() && v >= lo && v <= hi;
    let micros = acc.micros.round_ties_even();
    if !fits(acc.months, f64::from(i32::MIN), f64::from(i32::MAX))
        || !fits(acc.days, f64::from(i32::MIN), f64::from(i32::MAX))
        || !fits(micros, -9.2e18, 9.2e18)
    {
        return None;
    }
    Some(Interval { months: acc.months as i32, days: acc.days as i32, micros: micros as i64 })
}

/// The verbose (postgres) syntax: `[@] {number unit | time}... [ago]`.
fn parse_verbose(input: &str) -> Option<Acc> {
    let text = input.trim_start().strip_prefix('@').unwrap_or(input);
    let fields = lex::fields(text)?;
    let mut acc = Acc::default();
    let mut pending: Option<f64> = None;
    let mut ago = false;
    for (i, field) in fields.iter().enumerate() {
        match field {
            Field::Signed(t) | Field::Number(t) if !t.contains(':') => {
                if let Some(v) = pending.take() {
                    // A number followed by another number: the first was seconds.
                    acc.add_unit(v, Unit::Second);
                }
                pending = Some(t.parse().ok()?);
            }
            Field::Time(t) | Field::Signed(t) | Field::Number(t) => {
                if let Some(v) = pending.take() {
                    acc.add_unit(v, Unit::Day);
                }
                acc.micros += time_micros(t)?;
                acc.seen_any = true;
            }
            Field::Word(w) if w == "ago" && i == fields.len() - 1 => ago = true,
            Field::Word(w) => acc.add_unit(pending.take()?, unit_of(w)?),
            Field::Date(d) => year_month(d, pending.take(), &mut acc)?,
            Field::SignedWord(_) => return None,
        }
    }
    if let Some(v) = pending {
        acc.add_unit(v, Unit::Second);
    }
    if !acc.seen_any {
        return None;
    }
    if ago {
        acc = Acc { months: -acc.months, days: -acc.days, micros: -acc.micros, seen_any: true };
    }
    Some(acc)
}

/// SQL-standard `Y-M` year-month field (`1-2` is 1 year 2 months).
fn year_month(text: &str, pending: Option<f64>, acc: &mut Acc) -> Option<()> {
    if pending.is_some() {
        return None;
    }
    let (y, m) = text.split_once('-')?;
    let (y, m): (i64, i64) = (y.parse().ok()?, m.parse().ok()?);
    if !(0..12).contains(&m) {
        return None;
    }
    acc.months += (y * 12 + m) as f64;
    acc.seen_any = true;
    Some(())
}

/// Microseconds of a signed `[-]h:m[:s[.f]]` field.
fn time_micros(text: &str) -> Option<f64> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let parts: Vec<&str> = body.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let num = |p: &str| -> Option<f64> {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        p.parse().ok()
    };
    let hours = num(parts[0])?;
    let minutes = num(parts[1])?;
    let seconds = parts.get(2).map_or(Some(0.0), |s| num(s))?;
    if parts[0].contains('.') || parts[1].contains('.') || minutes >= 60.0 || seconds >= 60.0 {
        return None;
    }
    let v = hours * USECS_PER_HOUR as f64
        + minutes * USECS_PER_MINUTE as f64
        + (seconds * USECS_PER_SEC as f64).round_ties_even();
    Some(if neg { -v } else { v })
}

/// ISO 8601 duration after the `P`: `1Y2M3DT4H5M6.5S`, `3W`.
fn parse_iso(s: &str) -> Option<Acc> {
    let mut acc = Acc::default();
    let mut in_time = false;
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(['T', 't']) {
            in_time = true;
            rest = r;
            continue;
        }
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))?;
        let value: f64 = rest[..end].parse().ok()?;
        let unit = match (rest.as_bytes()[end].to_ascii_uppercase(), in_time) {
            (b'Y', false) => Unit::Year,
            (b'M', false) => Unit::Month,
            (b'W', false) => Unit::Week,
            (b'D', false) => Unit::Day,
            (b'H', true) => Unit::Hour,
            (b'M', true) => Unit::Minute,
            (b'S', true) => Unit::Second,
            _ => return None,
        };
        acc.add_unit(value, unit);
        rest = &rest[end + 1..];
    }
    acc.seen_any.then_some(acc)
}

/// `IntervalStyle = postgres` output.
pub fn output(iv: &Interval) -> String {
    let years = iv.months / 12;
    let months = iv.months % 12;
    let mut out = String::new();
    let mut is_before = false;
    let mut is_zero = true;
    for (value, unit) in [(years, "year"), (months, "mon"), (iv.days, "day")] {
        if value == 0 {
            continue;
        }
        if !is_zero {
            out.push(' ');
        }
        if is_before && value > 0 {
            out.push('+');
        }
        out.push_str(&format!("{value} {unit}{}", if value != 1 { "s" } else { "" }));
        is_before = value < 0;
        is_zero = false;
    }
    if is_zero || iv.micros != 0 {
        let minus = iv.micros < 0;
        let abs = iv.micros.unsigned_abs();
        let hours = abs / USECS_PER_HOUR as u64;
        let minutes = abs / USECS_PER_MINUTE as u64 % 60;
        let seconds = abs / USECS_PER_SEC as u64 % 60;
        if !is_zero {
            out.push(' ');
        }
        let sign = if minus {
            "-"
        } else if is_before {
            "+"
        } else {
            ""
        };
        out.push_str(&format!("{sign}{hours:02}:{minutes:02}:{seconds:02}"));
        super::format::append_fraction(&mut out, (abs % USECS_PER_SEC as u64) as i64);
    }
    out
}
