//! Giving meaning to date/time fields (PostgreSQL's `DecodeDateTime`).
//!
//! The rules are PostgreSQL's: a first numeric date field of three or more
//! digits is a year (`2024-01-15`), otherwise numeric dates follow the
//! `DateStyle` field order (`1/8/1999` is January 8th with `MDY`, August
//! 1st with `DMY`, and `01/02/03` is 2001-02-03 with `YMD`); a textual month makes
//! `Jan 8 1999`, `8-Jan-1999` and `1999-Jan-08` unambiguous; two-digit years
//! mean 1970-2069; `BC` flips the era; `AM`/`PM` adjust the hour. Special words
//! (`epoch`, `infinity`, `now`, `today`, ...) stand alone.
//!
//! Errors distinguish *format* (22007, the text is not a date at all) from
//! *field overflow* (22008, e.g. February 30th), and a misplaced month gets
//! PostgreSQL's hint about the `datestyle` setting, as in PostgreSQL.

use super::calendar::{self, Tm};
use super::lex::{self, Field};
use super::timezone::{abbreviation_offset, TimeZone};
use crate::context::DateOrder;

/// A time zone named or written in the input.
#[derive(Clone, Debug)]
pub enum TzSpec {
    /// A fixed offset in seconds east of UTC (`+02`, `EST`, `Z`).
    Offset(i32),
    /// A zone with rules (`Europe/Berlin`).
    Zone(TimeZone),
}

/// A special input word standing for a whole value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `epoch`: 1970-01-01 00:00:00 UTC.
    Epoch,
    /// `infinity`.
    Infinity,
    /// `-infinity`.
    NegInfinity,
    /// `now`: the transaction start time.
    Now,
    /// `today`: midnight of the current date.
    Today,
    /// `tomorrow`.
    Tomorrow,
    /// `yesterday`.
    Yesterday,
    /// `allballs`: 00:00:00 (for `time`).
    Allballs,
}

/// The meaning of date/time input.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    /// Date and time fields (date parts valid when `has_date`).
    pub tm: Tm,
    /// Whether a full date was given.
    pub has_date: bool,
    /// Whether a time of day was given.
    pub has_time: bool,
    /// An explicit time zone, if any.
    pub tz: Option<TzSpec>,
    /// A special word, if the input was one.
    pub special: Option<Special>,
}

/// Why decoding failed; the caller turns this into PostgreSQL's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not date/time syntax (22007 `invalid input syntax for type ...`).
    BadFormat,
    /// A field out of range (22008 `date/time field value out of range`).
    FieldOverflow,
    /// A month/day field out of range: as above plus the datestyle hint.
    MdFieldOverflow,
    /// A numeric zone offset out of range (22009).
    TzDispOverflow,
    /// An unknown time zone name (22023), with the name.
    UnknownZone,
}

/// Date parts seen so far, for the field-order rules.
#[derive(Default)]
struct State {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    doy: Option<i64>,
    year_two_digits: bool,
    text_month: bool,
    bc: bool,
    pm: Option<bool>,
    julian_next: bool,
    julian: bool,
    /// The `DateStyle` field order, for numbers whose place is ambiguous.
    order: DateOrder,
}

/// Decode date/time text into its parts, reading ambiguous numeric dates
/// in field order `order`.
pub fn decode(input: &str, order: DateOrder) -> Result<Decoded, DecodeError> {
    let fields = lex::fields(input).ok_or(DecodeError::BadFormat)?;
    if fields.is_empty() {
        return Err(DecodeError::BadFormat);
    }
    let mut out = Decoded::default();
    let mut st = State { order, ..State::default() };
    for field in &fields {
        decode_field(field, &mut st, &mut out)?;
    }
    if out.special.is_some() {
        return if fields.len() == 1 { Ok(out) } else { Err(DecodeError::BadFormat) };
    }
    finish_time(&st, &mut out)?;
    finish_date(&mut st, &mut out)?;
    Ok(out)
}

/// Apply one field.
fn decode_field(field: &Field, st: &mut State, out: &mut Decoded) -> Result<(), DecodeError> {
    match field {
        Field::Number(text) => decode_number(text, st, out),
        Field::Time(text) => {
            if out.has_time {
                return Err(DecodeError::BadFormat);
            }
            decode_time(text, &mut out.tm)?;
            out.has_time = true;
            Ok(())
        }
        Field::Date(text) => decode_date_field(text, st, out),
        Field::Word(word) => decode_word(word, st, out),
        Field::Signed(text) => {
            if out.tz.is_some() {
                return Err(DecodeError::BadFormat);
            }
            out.tz = Some(TzSpec::Offset(decode_offset(text)?));
            Ok(())
        }
        Field::SignedWord(word) => match word.as_str() {
            "-infinity" => set_special(out, Special::NegInfinity),
            "+infinity" => set_special(out, Special::Infinity),
            _ => Err(DecodeError::BadFormat),
        },
    }
}

/// Record a special word.
fn set_special(out: &mut Decoded, special: Special) -> Result<(), DecodeError> {
    if out.special.is_some() {
        return Err(DecodeError::BadFormat);
    }
    out.special = Some(special);
    Ok(())
}

/// A date field, or a zone name with punctuation once the date is known.
fn decode_date_field(text: &str, st: &mut State, out: &mut Decoded) -> Result<(), DecodeError> {
    let have_date = st.month.is_some() && st.day.is_some();
    if have_date
        || text.contains('_')
        || (text.contains('/') && text.starts_with(char::is_alphabetic))
    {
        return set_zone(text, out);
    }
    let parts: Vec<&str> = text.split(['-', '/', '.']).filter(|p| !p.is_empty()).collect();
    // Textual months first, so "15-jan-2024" knows it has a text month.
    for part in &parts {
        if part.starts_with(|c: char| c.is_ascii_alphabetic()) {
            match month_number(part) {
                Some(m) if st.month.is_none() => {
                    st.month = Some(m);
                    st.text_month = true;
                }
                _ => return set_zone(text, out),
            }
        }
    }
    for part in parts.iter().filter(|p| p.starts_with(|c: char| c.is_ascii_digit())) {
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(DecodeError::BadFormat);
        }
        date_number(part, st)?;
    }
    Ok(())
}

/// A plain number field.
fn decode_number(text: &str, st: &mut State, out: &mut Decoded) -> Result<(), DecodeError> {
    if st.julian_next {
        st.julian_next = false;
        let jd: i64 = text.parse().map_err(|_| DecodeError::BadFormat)?;
        if !calendar::is_valid_julian_date(jd) {
            return Err(DecodeError::FieldOverflow);
        }
        let (y, m, d) = calendar::j2date(jd);
        (st.year, st.month, st.day, st.julian) = (Some(y), Some(m), Some(d), true);
        return Ok(());
    }
    if text.contains('.') {
        // "1999.008": a date with a day-of-year, when no date was seen yet.
        if st.year.is_none() && st.month.is_none() && st.day.is_none() {
            return decode_date_field(text, st, out);
        }
        return Err(DecodeError::BadFormat);
    }
    let have_date = st.year.is_some() && st.month.is_some() && st.day.is_some();
    if text.len() >= 6 && (!have_date || !out.has_time) {
        return number_run(text, st, out);
    }
    if have_date {
        // After a complete date only long digit runs (HHMMSS) are meaningful.
        return Err(DecodeError::BadFormat);
    }
    date_number(text, st)
}

/// Concatenated digits: `20240115` (YYYYMMDD), `240115` (YYMMDD), or
/// `103000` (HHMMSS) after a date.
fn number_run(text: &str, st: &mut State, out: &mut Decoded) -> Result<(), DecodeError> {
    let have_date = st.year.is_some() && st.month.is_some() && st.day.is_some();
    let num = |a: usize, b: usize| text[a..b].parse::<i64>().map_err(|_| DecodeError::BadFormat);
    let n = text.len();
    if have_date {
        if n != 6 || out.has_time {
            return Err(DecodeError::BadFormat);
        }
        out.tm.hour = num(0, 2)?;
        out.tm.minute = num(2, 4)?;
        out.tm.second = num(4, 6)?;
        out.has_time = true;
        return check_time(&out.tm);
    }
    if st.year.is_some() || st.month.is_some() || st.day.is_some() {
        return Err(DecodeError::BadFormat);
    }
    st.day = Some(num(n - 2, n)?);
    st.month = Some(num(n - 4, n - 2)?);
    st.year = Some(num(0, n - 4)?);
    st.year_two_digits = n - 4 <= 2;
    Ok(())
}

/// One numeric part of a date, placed by PostgreSQL's `DecodeNumber` rules.
fn date_number(text: &str, st: &mut State) -> Result<(), DecodeError> {
    let val: i64 = text.parse().map_err(|_| DecodeError::BadFormat)?;
    let flen = text.len();
    let set_year = |st: &mut State, v: i64| {
        st.year = Some(v);
        st.year_two_digits = flen <= 2;
    };
    if flen == 3 && st.year.is_some() && st.month.is_none() && st.day.is_none() {
        st.doy = Some(val);
        return Ok(());
    }
    match (st.year.is_some(), st.month.is_some(), st.day.is_some()) {
        (false, false, false) => {
            if flen >= 3 || st.order == DateOrder::Ymd {
                set_year(st, val);
            } else if st.order == DateOrder::Dmy {
                st.day = Some(val);
            } else {
                st.month = Some(val);
            }
        }
        (true, false, false) => st.month = Some(val),
        (false, true, false) => {
            if st.text_month && (flen >= 3 || st.order == DateOrder::Ymd) {
                set_year(st, val);
            } else {
                st.day = Some(val);
            }
        }
        (true, true, false) => {
            if st.text_month && flen >= 3 && st.year_two_digits {
                // "DD-MON-YYYY": the first number was the day after all.
                st.day = st.year;
                set_year(st, val);
            } else {
                st.day = Some(val);
            }
        }
        (false, false, true) => st.month = Some(val),
        (false, true, true) => set_year(st, val),
        _ => return Err(DecodeError::BadFormat),
    }
    Ok(())
}

/// A word: month, weekday, meridian, era, zone, special value.
fn decode_word(word: &str, st: &mut State, out: &mut Decoded) -> Result<(), DecodeError> {
    if let Some(m) = month_number(word) {
        if st.month.is_some() && st.text_month {
            return Err(DecodeError::BadFormat);
        }
        if let Some(numeric_month) = st.month.take() {
            // "15 Jan": the number we took for a month was the day.
            if st.day.is_some() {
                return Err(DecodeError::BadFormat);
            }
            st.day = Some(numeric_month);
        }
        st.month = Some(m);
        st.text_month = true;
        return Ok(());
    }
    if let Some(special) = special_word(word) {
        return set_special(out, special);
    }
    match word {
        "am" | "pm" => st.pm = Some(word == "pm"),
        "ad" => {}
        "bc" => st.bc = true,
        "j" | "julian" => st.julian_next = true,
        "t" | "at" | "on" => {}
        _ if weekday(word) => {}
        _ => set_zone(word, out)?,
    }
    Ok(())
}

/// Record a zone given by name or abbreviation.
fn set_zone(name: &str, out: &mut Decoded) -> Result<(), DecodeError> {
    if out.tz.is_some() {
        return Err(DecodeError::BadFormat);
    }
    if let Some(off) = abbreviation_offset(name) {
        out.tz = Some(TzSpec::Offset(off));
        return Ok(());
    }
    // Only names that look like zone names are looked up; other words are
    // simply not date/time syntax.
    let looks_like_zone = name.contains('/') || name.len() > 3;
    if !looks_like_zone {
        return Err(DecodeError::BadFormat);
    }
    match TimeZone::named(name) {
        Ok(tz) => {
            out.tz = Some(TzSpec::Zone(tz));
            Ok(())
        }
        Err(_) if name.contains('/') => Err(DecodeError::UnknownZone),
        Err(_) => Err(DecodeError::BadFormat),
    }
}

/// The special value a word stands for.
fn special_word(word: &str) -> Option<Special> {
    Some(match word {
        "epoch" => Special::Epoch,
        "infinity" => Special::Infinity,
        "now" => Special::Now,
        "today" => Special::Today,
        "tomorrow" => Special::Tomorrow,
        "yesterday" => Special::Yesterday,
        "allballs" => Special::Allballs,
        _ => return None,
    })
}

/// Month number of an English month name or abbreviation.
pub fn month_number(word: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if word == "sept" {
        return Some(9);
    }
    MONTHS
        .iter()
        .position(|m| (word.len() == 3 || *m == word) && m.starts_with(word))
        .map(|p| p as i64 + 1)
}

/// Whether `word` names a weekday (which date input accepts and ignores).
fn weekday(word: &str) -> bool {
    const DAYS: [&str; 7] =
        ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
    const SHORT: [&str; 5] = ["tues", "wednes", "thur", "thurs", "wed"];
    SHORT.contains(&word)
        || DAYS.iter().any(|d| (word.len() == 3 || *d == word) && d.starts_with(word))
}

/// Parse `h:m[:s[.frac]]` into `tm`.
pub fn decode_time(text: &str, tm: &mut Tm) -> Result<(), DecodeError> {
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(DecodeError::BadFormat);
    }
    let int = |p: &str| -> Result<i64, DecodeError> {
        if !p.bytes().all(|b| b.is_ascii_digit()) || p.len() > 18 {
            return Err(DecodeError::BadFormat);
        }
        p.parse().map_err(|_| DecodeError::BadFormat)
    };
    let (minute, minute_frac) = split_fraction(parts[1])?;
    match (minute_frac, parts.get(2)) {
        (Some(_), Some(_)) => return Err(DecodeError::BadFormat),
        (Some(frac), None) => {
            // "mm:ss.fff" is read as minutes and seconds, as PostgreSQL does.
            tm.hour = 0;
            tm.minute = int(parts[0])?;
            tm.second = int(minute)?;
            tm.usec = fraction_usec(frac)?;
        }
        (None, sec) => {
            tm.hour = int(parts[0])?;
            tm.minute = int(minute)?;
            if let Some(sec) = sec {
                let (whole, frac) = split_fraction(sec)?;
                tm.second = int(whole)?;
                tm.usec = frac.map_or(Ok(0), fraction_usec)?;
            }
        }
    }
    check_time(tm)
}

/// Split `12.345` into `("12", Some("345"))`.
fn split_fraction(s: &str) -> Result<(&str, Option<&str>), DecodeError> {
    match s.split_once('.') {
        Some((w, f)) if !f.contains('.') && f.bytes().all(|b| b.is_ascii_digit()) => {
            Ok((w, Some(f)))
        }
        Some(_) => Err(DecodeError::BadFormat),
        None => Ok((s, None)),
    }
}

/// Microseconds of a decimal fraction's digits, rounded as PostgreSQL's `rint`.
pub fn fraction_usec(digits: &str) -> Result<i64, DecodeError> {
    let frac: f64 = format!("0.{digits}").parse().map_err(|_| DecodeError::BadFormat)?;
    Ok((frac * 1e6).round_ties_even() as i64)
}

/// Range checks of a time of day; 24:00:00 exactly and leap second 60 pass.
fn check_time(tm: &Tm) -> Result<(), DecodeError> {
    let ok = (0..=59).contains(&tm.minute)
        && (0..=60).contains(&tm.second)
        && (0..=1_000_000).contains(&tm.usec)
        && (tm.hour < 24 || (tm.hour == 24 && tm.minute == 0 && tm.second == 0 && tm.usec == 0));
    if ok {
        Ok(())
    } else {
        Err(DecodeError::FieldOverflow)
    }
}

/// Parse a numeric zone offset `±hh[:mm[:ss]]`, `±hhmm`, `±hhmmss`; seconds east.
pub fn decode_offset(text: &str) -> Result<i32, DecodeError> {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => return Err(DecodeError::BadFormat),
    };
    if body.contains('.') || body.is_empty() {
        return Err(DecodeError::BadFormat);
    }
    let parts: Vec<&str> = body.split(':').collect();
    let num = |p: &str| -> Result<i64, DecodeError> {
        if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(DecodeError::BadFormat);
        }
        p.parse().map_err(|_| DecodeError::BadFormat)
    };
    let (h, m, s) = match parts.as_slice() {
        [one] if one.len() > 2 => {
            let v = num(one)?;
            match one.len() {
                3 | 4 => (v / 100, v % 100, 0),
                5 | 6 => (v / 10000, v / 100 % 100, v % 100),
                _ => return Err(DecodeError::BadFormat),
            }
        }
        [h] => (num(h)?, 0, 0),
        [h, m] => (num(h)?, num(m)?, 0),
        [h, m, s] => (num(h)?, num(m)?, num(s)?),
        _ => return Err(DecodeError::BadFormat),
    };
    if h > 15 || m >= 60 || s >= 60 {
        return Err(DecodeError::TzDispOverflow);
    }
    let secs = (h * 3600 + m * 60 + s) as i32;
    Ok(if neg { -secs } else { secs })
}

/// Apply AM/PM to the hour.
fn finish_time(st: &State, out: &mut Decoded) -> Result<(), DecodeError> {
    if let Some(pm) = st.pm {
        if out.tm.hour > 12 {
            return Err(DecodeError::FieldOverflow);
        }
        if out.tm.hour == 12 {
            out.tm.hour = 0;
        }
        if pm {
            out.tm.hour += 12;
        }
    }
    Ok(())
}

/// Validate and store the date parts (PostgreSQL's `ValidateDate`).
fn finish_date(st: &mut State, out: &mut Decoded) -> Result<(), DecodeError> {
    if st.year.is_none() && st.month.is_none() && st.day.is_none() && st.doy.is_none() {
        if st.bc {
            return Err(DecodeError::BadFormat);
        }
        return Ok(());
    }
    let mut year = st.year.ok_or(DecodeError::BadFormat)?;
    if !st.julian {
        if st.bc {
            if year <= 0 {
                return Err(DecodeError::FieldOverflow);
            }
            year = -(year - 1);
        } else if st.year_two_digits {
            year += if year < 70 { 2000 } else { 1900 };
        } else if year <= 0 {
            return Err(DecodeError::FieldOverflow);
        }
    }
    if let Some(doy) = st.doy {
        let (y, m, d) = calendar::j2date(calendar::date2j(year, 1, 1) + doy - 1);
        (st.month, st.day, year) = (Some(m), Some(d), y);
    }
    let month = st.month.ok_or(DecodeError::BadFormat)?;
    let day = st.day.ok_or(DecodeError::BadFormat)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return Err(DecodeError::MdFieldOverflow);
    }
    if year.abs() > 10_000_000 || day > calendar::days_in_month(year, month) {
        return Err(DecodeError::FieldOverflow);
    }
    (out.tm.year, out.tm.month, out.tm.day) = (year, month, day);
    out.has_date = true;
    Ok(())
}
