//! Time zones: the session's `TimeZone` setting and zones named in input.
//!
//! A `timestamptz` is stored in UTC; the session time zone only decides how it
//! is read and printed. [`TimeZone`] answers the two questions that requires:
//! the UTC offset in force at a UTC instant (for output), and the offset to
//! apply to a local wall-clock time (for input). Named zones come from the
//! system's IANA tz database through `jiff`; fixed offsets need no database.
//!
//! For wall-clock times skipped by a daylight-saving transition PostgreSQL
//! uses the offset in force before the transition, and for repeated ones the
//! offset after it — in both cases, for the usual zones, standard time.
//! sluice does the same.
//!
//! Input may also name a zone by a common abbreviation (`EST`, `CEST`); the
//! table below holds the usual ones from PostgreSQL's `Default` abbreviation
//! set, each a fixed offset.

use crate::error::{Result, TypeError};

/// Seconds between 1970-01-01 and 2000-01-01.
const UNIX_TO_PG_SECS: i64 = 946_684_800;

/// A session or literal time zone.
#[derive(Clone, Debug)]
pub struct TimeZone {
    /// How offsets are found.
    repr: Repr,
    /// The abbreviation a fixed zone set by one (`EST`, `UTC`) prints as in
    /// the non-ISO `DateStyle`s.
    abbrev: Option<String>,
}

/// The two kinds of zone.
#[derive(Clone, Debug)]
enum Repr {
    /// A constant offset in seconds east of UTC.
    Fixed(i32),
    /// An IANA zone with its transition rules.
    Zone(jiff::tz::TimeZone),
}

impl Default for TimeZone {
    fn default() -> TimeZone {
        TimeZone::utc()
    }
}

impl TimeZone {
    /// UTC.
    pub fn utc() -> TimeZone {
        TimeZone { repr: Repr::Fixed(0), abbrev: Some("UTC".into()) }
    }

    /// A fixed offset, in seconds east of Greenwich.
    pub fn fixed(seconds_east: i32) -> TimeZone {
        TimeZone { repr: Repr::Fixed(seconds_east), abbrev: None }
    }

    /// A zone by IANA name (`Europe/Berlin`, `UTC`) or abbreviation (`EST`),
    /// ignoring case; PostgreSQL's `time zone "x" not recognized` otherwise.
    pub fn named(name: &str) -> Result<TimeZone> {
        if let Some(offset) = abbreviation_offset(name) {
            let abbrev = Some(name.to_ascii_uppercase());
            return Ok(TimeZone { repr: Repr::Fixed(offset), abbrev });
        }
        match jiff::tz::TimeZone::get(name) {
            Ok(tz) => Ok(TimeZone { repr: Repr::Zone(tz), abbrev: None }),
            Err(_) => {
                Err(TypeError::invalid_parameter(format!("time zone \"{name}\" not recognized")))
            }
        }
    }

    /// Offset (seconds east of UTC) in force at `utc_secs` seconds since
    /// 2000-01-01 00:00 UTC.
    pub fn offset_at_utc(&self, utc_secs: i64) -> i32 {
        match &self.repr {
            Repr::Fixed(off) => *off,
            Repr::Zone(tz) => {
                let unix = (utc_secs + UNIX_TO_PG_SECS)
                    .clamp(jiff::Timestamp::MIN.as_second(), jiff::Timestamp::MAX.as_second());
                match jiff::Timestamp::from_second(unix) {
                    Ok(ts) => tz.to_offset(ts).seconds(),
                    Err(_) => 0,
                }
            }
        }
    }

    /// The zone's abbreviation in force at `utc_secs` seconds since
    /// 2000-01-01 00:00 UTC (`PST`, `CEST`, `-03`), which the `SQL`,
    /// `Postgres` and `German` date styles print after a `timestamptz`;
    /// `None` for a bare offset, which prints as a number instead.
    pub fn abbreviation_at_utc(&self, utc_secs: i64) -> Option<String> {
        match &self.repr {
            Repr::Fixed(_) => self.abbrev.clone(),
            Repr::Zone(tz) => {
                let unix = (utc_secs + UNIX_TO_PG_SECS)
                    .clamp(jiff::Timestamp::MIN.as_second(), jiff::Timestamp::MAX.as_second());
                let ts = jiff::Timestamp::from_second(unix).ok()?;
                Some(tz.to_offset_info(ts).abbreviation().to_string())
            }
        }
    }

    /// Offset (seconds east of UTC) to apply to the wall-clock time
    /// `local_secs` seconds since 2000-01-01 00:00 local time.
    pub fn offset_for_local(&self, local_secs: i64) -> i32 {
        match &self.repr {
            Repr::Fixed(off) => *off,
            Repr::Zone(tz) => {
                let Some(dt) = civil(local_secs) else {
                    return self.offset_at_utc(local_secs);
                };
                match tz.to_ambiguous_timestamp(dt).offset() {
                    jiff::tz::AmbiguousOffset::Unambiguous { offset } => offset.seconds(),
                    jiff::tz::AmbiguousOffset::Gap { before, .. } => before.seconds(),
                    jiff::tz::AmbiguousOffset::Fold { after, .. } => after.seconds(),
                }
            }
        }
    }
}

/// The civil date-time of local seconds since 2000-01-01, clamped into the
/// years jiff supports (offsets beyond them repeat the boundary years' rules).
fn civil(local_secs: i64) -> Option<jiff::civil::DateTime> {
    let tm = super::calendar::timestamp2tm(local_secs.checked_mul(1_000_000)?);
    let year = tm.year.clamp(-9998, 9998) as i16;
    jiff::civil::DateTime::new(
        year,
        tm.month as i8,
        tm.day as i8,
        tm.hour as i8,
        tm.minute as i8,
        tm.second as i8,
        0,
    )
    .ok()
}

/// Fixed offset of a well-known zone abbreviation, in seconds east.
pub fn abbreviation_offset(name: &str) -> Option<i32> {
    const H: i32 = 3600;
    let off = match name.to_ascii_lowercase().as_str() {
        "utc" | "gmt" | "z" | "zulu" | "ut" | "wet" => 0,
        "est" => -5 * H,
        "edt" => -4 * H,
        "cst" => -6 * H,
        "cdt" => -5 * H,
        "mst" => -7 * H,
        "mdt" => -6 * H,
        "pst" => -8 * H,
        "pdt" => -7 * H,
        "akst" => -9 * H,
        "akdt" => -8 * H,
        "hst" => -10 * H,
        "cet" | "west" | "bst" => H,
        "cest" | "eet" | "ist" => 2 * H,
        "eest" | "msk" => 3 * H,
        "jst" => 9 * H,
        "aest" => 10 * H,
        "aedt" => 11 * H,
        "nzst" => 12 * H,
        "nzdt" => 13 * H,
        _ => return None,
    };
    Some(off)
}
