//! Text input of `date`, `time`, `timestamp` and `timestamptz`.
//!
//! All four decode the same free-form syntax (`decode.rs`) and then take what
//! they need: `date` the date, `time` the time of day, `timestamp` both (an
//! explicit zone is accepted and ignored, as PostgreSQL does), `timestamptz`
//! both plus a zone, defaulting to the session's. Special words resolve
//! against the [`Context`]: `now` is the transaction start, `today` is
//! midnight of the current date in the session zone.

use super::calendar::{self, POSTGRES_EPOCH_JDATE, USECS_PER_DAY, USECS_PER_SEC};
use super::decode::{decode, DecodeError, Decoded, Special, TzSpec};
use crate::context::Context;
use crate::error::{ErrorKind, Result, TypeError};

/// Julian day of 1970-01-01 relative to 2000-01-01, for `epoch`.
const EPOCH_DAYS: i64 = calendar::UNIX_EPOCH_JDATE - POSTGRES_EPOCH_JDATE;

/// PostgreSQL's message for a decode failure of `input` as `type_name`.
pub fn decode_error(e: DecodeError, type_name: &str, input: &str) -> TypeError {
    match e {
        DecodeError::BadFormat => TypeError::new(
            ErrorKind::InvalidDatetimeFormat,
            format!("invalid input syntax for type {type_name}: \"{input}\""),
        ),
        DecodeError::FieldOverflow => TypeError::datetime_field_overflow(input),
        DecodeError::MdFieldOverflow => TypeError::datetime_field_overflow(input)
            .with_hint("Perhaps you need a different \"datestyle\" setting."),
        DecodeError::TzDispOverflow => TypeError::new(
            ErrorKind::InvalidTimeZoneDisplacement,
            format!("time zone displacement out of range: \"{input}\""),
        ),
        DecodeError::UnknownZone => TypeError::invalid_parameter(format!(
            "time zone \"{}\" not recognized",
            unknown_zone_name(input)
        )),
    }
}

/// The word of `input` that looked like a zone name, lower-cased as
/// PostgreSQL reports it.
fn unknown_zone_name(input: &str) -> String {
    input.split_whitespace().find(|w| w.contains('/')).unwrap_or(input).to_ascii_lowercase()
}

/// Parse `date` text.
pub fn parse_date(input: &str, ctx: &Context) -> Result<i32> {
    let d = decode(input, ctx.date_style.order).map_err(|e| decode_error(e, "date", input))?;
    if let Some(special) = d.special {
        return special_date(special, ctx)
            .ok_or_else(|| decode_error(DecodeError::BadFormat, "date", input));
    }
    if !d.has_date {
        return Err(decode_error(DecodeError::BadFormat, "date", input));
    }
    let jd = calendar::date2j(d.tm.year, d.tm.month, d.tm.day);
    if !calendar::is_valid_julian_date(jd) {
        return Err(TypeError::new(
            ErrorKind::DatetimeFieldOverflow,
            format!("date out of range: \"{input}\""),
        ));
    }
    Ok((jd - POSTGRES_EPOCH_JDATE) as i32)
}

/// The date a special word stands for.
fn special_date(special: Special, ctx: &Context) -> Option<i32> {
    let today = || local_date(ctx.now, ctx);
    Some(match special {
        Special::Epoch => EPOCH_DAYS as i32,
        Special::Infinity => i32::MAX,
        Special::NegInfinity => i32::MIN,
        Special::Now | Special::Today => today(),
        Special::Tomorrow => today() + 1,
        Special::Yesterday => today() - 1,
        Special::Allballs => return None,
    })
}

/// The session-local date of a `timestamptz`.
pub fn local_date(ts: i64, ctx: &Context) -> i32 {
    let local = to_local(ts, ctx);
    local.div_euclid(USECS_PER_DAY) as i32
}

/// A `timestamptz` as local time (microseconds since 2000-01-01 local).
pub fn to_local(ts: i64, ctx: &Context) -> i64 {
    if ts == i64::MIN || ts == i64::MAX {
        return ts;
    }
    let offset = ctx.time_zone.offset_at_utc(ts.div_euclid(USECS_PER_SEC));
    ts.saturating_add(i64::from(offset) * USECS_PER_SEC)
}

/// A local time in the session zone converted to `timestamptz`.
pub fn from_local(local: i64, ctx: &Context) -> i64 {
    if local == i64::MIN || local == i64::MAX {
        return local;
    }
    let offset = ctx.time_zone.offset_for_local(local.div_euclid(USECS_PER_SEC));
    local.saturating_sub(i64::from(offset) * USECS_PER_SEC)
}

/// Parse `time` text, rounded to `typmod` fractional digits.
pub fn parse_time(input: &str, typmod: i32, ctx: &Context) -> Result<i64> {
    let d = decode(input, ctx.date_style.order).map_err(|e| decode_error(e, "time", input))?;
    let time = match d.special {
        Some(Special::Allballs) => 0,
        Some(Special::Now) => to_local(ctx.now, ctx).rem_euclid(USECS_PER_DAY),
        Some(_) => return Err(decode_error(DecodeError::BadFormat, "time", input)),
        None if !d.has_time => return Err(decode_error(DecodeError::BadFormat, "time", input)),
        None => calendar::tm2time(&d.tm),
    };
    Ok(adjust_time_typmod(time, typmod))
}

/// Parse `timestamp` text, rounded to `typmod` fractional digits.
pub fn parse_timestamp(input: &str, typmod: i32, ctx: &Context) -> Result<i64> {
    let d = decode(input, ctx.date_style.order).map_err(|e| decode_error(e, "timestamp", input))?;
    let ts = match d.special {
        Some(special) => special_timestamp(special, ctx, false)
            .ok_or_else(|| decode_error(DecodeError::BadFormat, "timestamp", input))?,
        None => local_timestamp(&d, "timestamp", input)?,
    };
    adjust_timestamp_typmod(ts, typmod)
}

/// Parse `timestamptz` text, rounded to `typmod` fractional digits.
pub fn parse_timestamptz(input: &str, typmod: i32, ctx: &Context) -> Result<i64> {
    const NAME: &str = "timestamp with time zone";
    let d = decode(input, ctx.date_style.order).map_err(|e| decode_error(e, NAME, input))?;
    let ts = match d.special {
        Some(special) => special_timestamp(special, ctx, true)
            .ok_or_else(|| decode_error(DecodeError::BadFormat, NAME, input))?,
        None => {
            let local = local_timestamp(&d, NAME, input)?;
            let offset = match &d.tz {
                Some(TzSpec::Offset(off)) => *off,
                Some(TzSpec::Zone(tz)) => tz.offset_for_local(local.div_euclid(USECS_PER_SEC)),
                None => ctx.time_zone.offset_for_local(local.div_euclid(USECS_PER_SEC)),
            };
            let utc = local - i64::from(offset) * USECS_PER_SEC;
            if !calendar::is_valid_timestamp(utc) {
                return Err(timestamp_range_error(input));
            }
            utc
        }
    };
    adjust_timestamp_typmod(ts, typmod)
}

/// `timestamp out of range: "input"` (22008).
fn timestamp_range_error(input: &str) -> TypeError {
    TypeError::new(ErrorKind::DatetimeFieldOverflow, format!("timestamp out of range: \"{input}\""))
}

/// Local timestamp of decoded fields, which must include a date.
fn local_timestamp(d: &Decoded, type_name: &str, input: &str) -> Result<i64> {
    if !d.has_date {
        return Err(decode_error(DecodeError::BadFormat, type_name, input));
    }
    calendar::tm2timestamp(&d.tm).ok_or_else(|| timestamp_range_error(input))
}

/// The timestamp a special word stands for; `tz` selects `timestamptz`
/// (instants) over `timestamp` (local wall-clock values).
fn special_timestamp(special: Special, ctx: &Context, tz: bool) -> Option<i64> {
    let midnight = |days: i64| {
        let local = (i64::from(local_date(ctx.now, ctx)) + days) * USECS_PER_DAY;
        if tz {
            from_local(local, ctx)
        } else {
            local
        }
    };
    Some(match special {
        Special::Epoch => EPOCH_DAYS * USECS_PER_DAY,
        Special::Infinity => i64::MAX,
        Special::NegInfinity => i64::MIN,
        Special::Now if tz => ctx.now,
        Special::Now => to_local(ctx.now, ctx),
        Special::Today => midnight(0),
        Special::Tomorrow => midnight(1),
        Special::Yesterday => midnight(-1),
        Special::Allballs => return None,
    })
}

/// Microseconds per unit of the last kept digit, for precisions 0..=6.
const SCALES: [i64; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];

/// Round microseconds to `typmod` fractional digits, half away from zero.
fn round_to_precision(v: i64, typmod: i32) -> i64 {
    if !(0..6).contains(&typmod) {
        return v;
    }
    let scale = SCALES[typmod as usize];
    let half = scale / 2;
    if v >= 0 {
        (v + half) / scale * scale
    } else {
        -((-v + half) / scale * scale)
    }
}

/// `time(p)` rounding.
pub fn adjust_time_typmod(time: i64, typmod: i32) -> i64 {
    round_to_precision(time, typmod)
}

/// `timestamp(p)` rounding, with the range re-checked afterwards.
pub fn adjust_timestamp_typmod(ts: i64, typmod: i32) -> Result<i64> {
    if ts == i64::MIN || ts == i64::MAX {
        return Ok(ts);
    }
    let r = round_to_precision(ts, typmod);
    if !calendar::is_valid_timestamp(r) {
        return Err(TypeError::new(ErrorKind::DatetimeFieldOverflow, "timestamp out of range"));
    }
    Ok(r)
}
