//! Date/time built-ins over evaluated arguments (`date_trunc`, `extract`,
//! `date_part`, `age`, the current-time functions, `AT TIME ZONE`), and the
//! interval typmod rules the types crate leaves to the analyzer.
//!
//! Everything that depends on the session reads the [`Context`]: "now" is the
//! transaction start time, and `timestamptz` values are broken down in the
//! session's time zone. `interval` typmods carry a *field range* as well as a
//! precision (`interval '1' day`, `interval hour to minute`): a bare number
//! counts in the range's last field, and fields below the range are dropped
//! (PostgreSQL's `AdjustIntervalForTypmod`).

use sluice_guc::Settings;
use sluice_types::datetime::calendar::{USECS_PER_HOUR, USECS_PER_MINUTE};
use sluice_types::datetime::{arith, funcs, input, interval, Interval, TimeZone};
use sluice_types::{io, Context, DateStyle, Datum, ErrorKind, IntervalStyle, Numeric, TypeError};

use super::builtin::{arg, float, text, unexpected, Builtin};
use super::typename::INTERVAL_FULL_RANGE;
use crate::{Result, SqlError};

/// Field masks of interval ranges (PostgreSQL's `INTERVAL_MASK`).
const MONTH: i32 = 1 << 1;
const YEAR: i32 = 1 << 2;
const DAY: i32 = 1 << 3;
const HOUR: i32 = 1 << 10;
const MINUTE: i32 = 1 << 11;
const SECOND: i32 = 1 << 12;

/// Seconds between 1970-01-01 and 2000-01-01.
const UNIX_EPOCH_OFFSET_SECS: f64 = 946_684_800.0;

/// `to_timestamp`'s accepted range in Unix seconds: Julian day 0 to the end
/// of the timestamp range (Julian day 109203528).
const MIN_UNIX_SECS: f64 = -210_866_803_200.0;
const MAX_UNIX_SECS: f64 = 9_224_318_016_000.0;

/// call -- computes a date/time built-in over non-null arguments.
pub(super) fn call(func: Builtin, args: &[Datum], ctx: &Context) -> Result<Datum> {
    Ok(match func {
        Builtin::Now => Datum::TimestampTz(ctx.now),
        Builtin::CurrentDate => Datum::Date(input::local_date(ctx.now, ctx)),
        Builtin::LocalTimestamp => Datum::Timestamp(input::to_local(ctx.now, ctx)),
        Builtin::LocalTime => {
            arith::timestamp_to_time(input::to_local(ctx.now, ctx)).map_or(Datum::Null, Datum::Time)
        }
        Builtin::DateTrunc => date_trunc(text(args, 0)?, arg(args, 1)?, ctx)?,
        Builtin::Extract => {
            extract(text(args, 0)?, arg(args, 1)?, ctx)?.map_or(Datum::Null, Datum::Numeric)
        }
        Builtin::DatePart => date_part(text(args, 0)?, arg(args, 1)?, ctx)?,
        Builtin::Age => age(args, ctx)?,
        Builtin::AtTimeZone => at_time_zone(arg(args, 0)?, arg(args, 1)?, ctx)?,
        Builtin::IsFinite => Datum::Bool(is_finite(arg(args, 0)?)),
        Builtin::ToTimestamp => to_timestamp(float(args, 0)?)?,
        other => return Err(SqlError::internal(format!("{other:?} is not a date/time function"))),
    })
}

/// `date_trunc(unit, x)`.
fn date_trunc(unit: &str, value: &Datum, ctx: &Context) -> Result<Datum> {
    Ok(match value {
        Datum::Timestamp(ts) => Datum::Timestamp(funcs::trunc_timestamp(unit, *ts)?),
        Datum::TimestampTz(ts) => Datum::TimestampTz(funcs::trunc_timestamptz(unit, *ts, ctx)?),
        Datum::Interval(iv) => Datum::Interval(funcs::trunc_interval(unit, iv)?),
        other => return Err(unexpected(other)),
    })
}

/// `extract(unit FROM x)`; `None` is NULL (a field of an infinite value).
fn extract(unit: &str, value: &Datum, ctx: &Context) -> Result<Option<Numeric>> {
    Ok(match value {
        Datum::Date(d) => funcs::extract_date(unit, *d)?,
        Datum::Time(t) => Some(funcs::extract_time(unit, *t)?),
        Datum::Timestamp(ts) => funcs::extract_timestamp(unit, *ts)?,
        Datum::TimestampTz(ts) => funcs::extract_timestamptz(unit, *ts, ctx)?,
        Datum::Interval(iv) => Some(funcs::extract_interval(unit, iv)?),
        other => return Err(unexpected(other)),
    })
}

/// `date_part(unit, x)`: `extract` as double precision; a date counts as
/// its midnight (PostgreSQL's SQL-language `date_part(text, date)`).
fn date_part(unit: &str, value: &Datum, ctx: &Context) -> Result<Datum> {
    let value = match value {
        Datum::Date(d) => Datum::Timestamp(arith::date_to_timestamp(*d)?),
        other => other.clone(),
    };
    Ok(extract(unit, &value, ctx)?.map_or(Datum::Null, |n| Datum::Float8(n.to_f64())))
}

/// `age(a, b)` or `age(a)` (from today's midnight).
fn age(args: &[Datum], ctx: &Context) -> Result<Datum> {
    let iv = match (arg(args, 0)?, args.get(1)) {
        (Datum::Timestamp(a), Some(Datum::Timestamp(b))) => funcs::age_timestamp(*a, *b)?,
        (Datum::TimestampTz(a), Some(Datum::TimestampTz(b))) => {
            funcs::age_timestamptz(*a, *b, ctx)?
        }
        (Datum::Timestamp(a), None) => funcs::age_from_today(*a, ctx)?,
        (Datum::TimestampTz(a), None) => funcs::age_from_today_tz(*a, ctx)?,
        (other, _) => return Err(unexpected(other)),
    };
    Ok(Datum::Interval(iv))
}

/// `timezone(zone, x)`: a `timestamptz` as wall-clock time in `zone`, or a
/// wall-clock `timestamp` in `zone` as a `timestamptz`.
fn at_time_zone(zone: &Datum, value: &Datum, ctx: &Context) -> Result<Datum> {
    let tz = match zone {
        Datum::Text(name) => TimeZone::named(name)?,
        Datum::Interval(iv) if iv.months == 0 && iv.days == 0 => {
            let secs = iv.micros / 1_000_000;
            TimeZone::fixed(i32::try_from(secs).map_err(|_| zone_out_of_range(zone, ctx))?)
        }
        Datum::Interval(_) => {
            return Err(SqlError::new(
                "22023",
                format!(
                    "interval time zone \"{}\" must not include months or days",
                    io::output(zone, ctx).unwrap_or_default()
                ),
            ))
        }
        other => return Err(unexpected(other)),
    };
    let zoned = Context::new(tz, ctx.now);
    Ok(match value {
        Datum::TimestampTz(ts) if arith::is_infinite(*ts) => Datum::Timestamp(*ts),
        Datum::TimestampTz(ts) => Datum::Timestamp(input::to_local(*ts, &zoned)),
        Datum::Timestamp(ts) if arith::is_infinite(*ts) => Datum::TimestampTz(*ts),
        Datum::Timestamp(ts) => Datum::TimestampTz(input::from_local(*ts, &zoned)),
        other => return Err(unexpected(other)),
    })
}

/// 22023 for an interval zone too large to be an offset.
fn zone_out_of_range(zone: &Datum, ctx: &Context) -> SqlError {
    SqlError::new(
        "22023",
        format!(
            "interval time zone \"{}\" is out of range",
            io::output(zone, ctx).unwrap_or_default()
        ),
    )
}

/// `isfinite(x)`.
fn is_finite(value: &Datum) -> bool {
    match value {
        Datum::Date(d) => *d != i32::MIN && *d != i32::MAX,
        Datum::Timestamp(ts) | Datum::TimestampTz(ts) => !arith::is_infinite(*ts),
        _ => true,
    }
}

/// `to_timestamp(seconds since 1970)`.
fn to_timestamp(seconds: f64) -> Result<Datum> {
    if seconds.is_nan() {
        return Err(SqlError::new("22008", "timestamp cannot be NaN"));
    }
    if seconds.is_infinite() {
        return Ok(Datum::TimestampTz(if seconds > 0.0 { i64::MAX } else { i64::MIN }));
    }
    // PostgreSQL's limits: Julian day 0 up to the end of the timestamp range.
    if !(MIN_UNIX_SECS..MAX_UNIX_SECS).contains(&seconds) {
        return Err(SqlError::new("22008", format!("timestamp out of range: \"{seconds}\"")));
    }
    let micros = ((seconds - UNIX_EPOCH_OFFSET_SECS) * 1_000_000.0).round();
    Ok(Datum::TimestampTz(micros as i64))
}

/// A `date`, `timestamp` or `timestamptz` as a `timestamptz`, for the
/// cross-type comparisons.
pub(super) fn as_timestamptz(value: &Datum, ctx: &Context) -> Result<i64> {
    Ok(match value {
        Datum::TimestampTz(ts) => *ts,
        Datum::Timestamp(ts) => arith::timestamp_to_timestamptz(*ts, ctx)?,
        Datum::Date(d) => arith::date_to_timestamptz(*d, ctx)?,
        other => return Err(unexpected(other)),
    })
}

/// parse_interval_literal -- interval input under a typmod: a bare number
/// counts in the range's last field, then the typmod is applied.
pub(super) fn parse_interval_literal(text: &str, typmod: i32) -> sluice_types::Result<Interval> {
    let trimmed = text.trim();
    let bare = !trimmed.is_empty()
        && trimmed.trim_start_matches(['+', '-']).chars().all(|c| c.is_ascii_digit() || c == '.');
    let iv = match (bare, typmod >= 0) {
        (true, true) => interval::parse(&format!("{trimmed} {}", last_field(range(typmod))))
            .map_err(|_| TypeError::invalid_syntax("interval", text))?,
        _ => interval::parse(text)?,
    };
    adjust_interval(iv, typmod)
}

/// adjust_interval -- drops the fields below an interval typmod's range and
/// rounds to its precision.
pub(super) fn adjust_interval(mut iv: Interval, typmod: i32) -> sluice_types::Result<Interval> {
    if typmod < 0 {
        return Ok(iv);
    }
    let truncate = |micros: i64, unit: i64| micros / unit * unit;
    match range(typmod) {
        INTERVAL_FULL_RANGE => {}
        r if r == YEAR => {
            iv.months = iv.months / 12 * 12;
            iv.days = 0;
            iv.micros = 0;
        }
        r if r == MONTH || r == YEAR | MONTH => {
            iv.days = 0;
            iv.micros = 0;
        }
        r if r == DAY => iv.micros = 0,
        r if r == HOUR || r == DAY | HOUR => iv.micros = truncate(iv.micros, USECS_PER_HOUR),
        r if r == MINUTE || r == DAY | HOUR | MINUTE || r == HOUR | MINUTE => {
            iv.micros = truncate(iv.micros, USECS_PER_MINUTE)
        }
        r if r & SECOND != 0 => {}
        _ => {
            return Err(TypeError::new(
                ErrorKind::DataException,
                format!("unrecognized interval typmod: {typmod}"),
            ))
        }
    }
    Ok(io::adjust_interval_typmod(iv, typmod))
}

/// The field range of an interval typmod.
fn range(typmod: i32) -> i32 {
    (typmod >> 16) & INTERVAL_FULL_RANGE
}

/// The unit a bare number means under field range `range`.
fn last_field(range: i32) -> &'static str {
    if range & SECOND != 0 || range == INTERVAL_FULL_RANGE {
        "seconds"
    } else if range & MINUTE != 0 {
        "minutes"
    } else if range & HOUR != 0 {
        "hours"
    } else if range & DAY != 0 {
        "days"
    } else if range & MONTH != 0 {
        "months"
    } else {
        "years"
    }
}

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
const POSTGRES_EPOCH_OFFSET_MICROS: i64 = 946_684_800_000_000;

/// The current time as a timestamptz value.
pub fn now_timestamptz() -> i64 {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    micros - POSTGRES_EPOCH_OFFSET_MICROS
}

/// session_context -- the [`Context`] of `settings` at transaction time
/// `now`: the time zone and the date and interval styles that values are
/// read and printed in (an unknown zone, which SET refuses, reads as UTC).
pub fn session_context<S: Settings + ?Sized>(settings: &S, now: i64) -> Context {
    let zone = TimeZone::named(&settings.get_str("TimeZone")).unwrap_or_default();
    let date_style = DateStyle::from_setting(&settings.get_str("DateStyle"));
    let interval_style = IntervalStyle::from_setting(settings.get_enum("IntervalStyle"));
    Context::new(zone, now).with_styles(date_style, interval_style)
}
