//! Setting values: the [`Value`] type, the text forms PostgreSQL accepts for
//! each type, and the forms `SHOW` and `pg_settings` print.
//!
//! Parsing follows PostgreSQL's `parse_bool`, `parse_int` and `parse_real`
//! character for character, because users and tools rely on the corners:
//!
//! * booleans: `on`, `off`, any prefix of `true`, `false`, `yes`, `no` (case
//!   ignored), `1`, `0`; `o` alone is ambiguous and refused;
//! * integers: C's `strtol` with base detection (`0x1F` hex, `010` octal), or a
//!   floating-point form (`1.5`, `1e3`) rounded half-to-even after unit
//!   conversion; then optional spaces and a case-sensitive unit (`'64 MB'`);
//! * reals: C's `strtod`, then an optional unit;
//! * enums: one of the listed words, case ignored.
//!
//! Display follows `ShowGUCOption`: integers and reals in the largest exact
//! unit when `use_units` (SHOW), raw base-unit numbers otherwise
//! (`pg_settings.setting`); reals as C's `%g`.

use std::sync::Arc;

use crate::registry::{EnumOption, Kind, Setting};
use crate::units::Unit;

/// A setting's value, already parsed and validated.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// An integer in the setting's base unit.
    Int(i32),
    /// A real in the setting's base unit.
    Real(f64),
    /// Text (shared: session copies of the same value cost a pointer).
    Str(Arc<str>),
    /// The canonical word of an enum value.
    Enum(&'static str),
}

impl Value {
    /// The boot value of `setting` (PostgreSQL's `boot_val`; NULL becomes "").
    pub fn boot(setting: &Setting) -> Value {
        match setting.kind {
            Kind::Bool { boot } => Value::Bool(boot),
            Kind::Int { boot, .. } => Value::Int(boot),
            Kind::Real { boot, .. } => Value::Real(boot),
            Kind::String { boot } => Value::Str(Arc::from(boot.unwrap_or(""))),
            Kind::Enum { boot, .. } => Value::Enum(boot),
        }
    }

    /// display -- the value as text; with `use_units`, numbers with a unit are
    /// shown in the largest unit that is exact (what `SHOW` prints), otherwise
    /// as the raw base-unit number (`pg_settings.setting`). Show hooks are
    /// applied by the caller, which knows the other settings.
    pub fn display(&self, unit: Option<Unit>, use_units: bool) -> String {
        match *self {
            Value::Bool(b) => if b { "on" } else { "off" }.to_string(),
            Value::Int(v) => match unit {
                Some(unit) if use_units && v > 0 => {
                    let (v, name) = unit.int_from_base(i64::from(v));
                    format!("{v}{name}")
                }
                _ => v.to_string(),
            },
            Value::Real(v) => match unit {
                Some(unit) if use_units && v > 0.0 => {
                    let (v, name) = unit.real_from_base(v);
                    format!("{}{name}", format_g(v))
                }
                _ => format_g(v),
            },
            Value::Str(ref s) => s.to_string(),
            Value::Enum(word) => word.to_string(),
        }
    }
}

/// parse_bool -- PostgreSQL's `parse_bool`: the accepted spellings of true and
/// false, or None.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    let is_prefix_of = |word: &str| !lower.is_empty() && word.starts_with(lower.as_str());
    match lower.as_bytes().first()? {
        b't' if is_prefix_of("true") => Some(true),
        b'f' if is_prefix_of("false") => Some(false),
        b'y' if is_prefix_of("yes") => Some(true),
        b'n' if is_prefix_of("no") => Some(false),
        // "o" alone could be on or off: at least two letters are needed.
        b'o' if lower == "on" => Some(true),
        b'o' if lower.len() >= 2 && is_prefix_of("off") => Some(false),
        b'1' if lower.len() == 1 => Some(true),
        b'0' if lower.len() == 1 => Some(false),
        _ => None,
    }
}

/// Why a number did not parse: with the HINT PostgreSQL gives, if any.
pub(crate) type NumberError = Option<&'static str>;

/// The hint for an integer that does not fit in 32 bits.
const INTEGER_RANGE_HINT: &str = "Value exceeds integer range.";

/// parse_int -- PostgreSQL's `parse_int`: an integer (any base C's `strtol`
/// accepts, or a float form), optional spaces, then a unit if the setting has
/// one; the result is in the base unit, rounded half to even.
pub(crate) fn parse_int(text: &str, unit: Option<Unit>) -> Result<i32, NumberError> {
    let (mut value, rest) = match strtol(text) {
        Strtol::Parsed(v, rest) if !rest.starts_with(['.', 'e', 'E']) => (v, rest),
        // A decimal point, an exponent or an overflow: read it as a float.
        Strtol::Parsed(..) | Strtol::Overflow => strtod(text).ok_or(None)?,
        Strtol::NoDigits if text.starts_with(['.', 'e', 'E']) => strtod(text).ok_or(None)?,
        Strtol::NoDigits => return Err(None),
    };
    if value.is_nan() {
        return Err(None);
    }
    value = apply_unit(value, rest, unit)?.round_ties_even();
    if value > f64::from(i32::MAX) || value < f64::from(i32::MIN) {
        return Err(Some(INTEGER_RANGE_HINT));
    }
    Ok(value as i32)
}

/// parse_real -- PostgreSQL's `parse_real`: C's `strtod`, then a unit if the
/// setting has one; NaN is refused, infinities fail the range check later.
pub(crate) fn parse_real(text: &str, unit: Option<Unit>) -> Result<f64, NumberError> {
    let (value, rest) = strtod(text).ok_or(None)?;
    if value.is_nan() {
        return Err(None);
    }
    apply_unit(value, rest, unit)
}

/// apply_unit -- handle what follows a number: spaces, then nothing or a unit
/// name (with trailing spaces allowed) that converts to `unit`.
fn apply_unit(value: f64, rest: &str, unit: Option<Unit>) -> Result<f64, NumberError> {
    let rest = rest.trim_start_matches(is_c_space);
    if rest.is_empty() {
        return Ok(value);
    }
    let unit = unit.ok_or(None)?;
    let name = rest.trim_end_matches(is_c_space);
    // PostgreSQL reads at most three characters of unit name, then only spaces.
    if name.len() > 3 || name.contains(is_c_space) {
        return Err(Some(unit.hint()));
    }
    unit.to_base(value, name).ok_or(Some(unit.hint()))
}

/// lookup_enum -- the canonical word for `text` among `options`, ignoring case.
pub(crate) fn lookup_enum(options: &[EnumOption], text: &str) -> Option<&'static str> {
    options.iter().find(|o| o.name.eq_ignore_ascii_case(text)).map(|o| o.canonical)
}

/// C's `isspace` in the "C" locale.
fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// The outcome of C's `strtol`.
enum Strtol<'a> {
    /// A value (as a double, like PostgreSQL keeps it) and the unparsed rest.
    Parsed(f64, &'a str),
    /// No digits: C leaves the end pointer at the start of the input.
    NoDigits,
    /// Too large for a 64-bit `long` (ERANGE).
    Overflow,
}

/// strtol -- C's `strtol(text, &end, 0)` on a 64-bit `long`: leading spaces,
/// a sign, then hex (`0x`), octal (leading `0`) or decimal digits.
fn strtol(text: &str) -> Strtol<'_> {
    let s = text.trim_start_matches(is_c_space);
    let (negative, s) = split_sign(s);
    let hex = s.len() > 2
        && (s.starts_with("0x") || s.starts_with("0X"))
        && s.as_bytes()[2].is_ascii_hexdigit();
    let (radix, digits) = if hex {
        (16, &s[2..])
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let len = digits.bytes().take_while(|b| char::from(*b).is_digit(radix)).count();
    if len == 0 {
        return Strtol::NoDigits;
    }
    match i64::from_str_radix(&digits[..len], radix) {
        Ok(magnitude) => {
            let value = if negative { -magnitude } else { magnitude };
            Strtol::Parsed(value as f64, &digits[len..])
        }
        Err(_) => Strtol::Overflow,
    }
}

/// strtod -- C's `strtod`: leading spaces, a sign, then `inf`/`infinity`/`nan`,
/// a hex float, or a decimal with optional fraction and exponent. Returns the
/// value and the unparsed rest; None if nothing parsed or the result is out of
/// range (overflow or underflow: C's ERANGE).
fn strtod(text: &str) -> Option<(f64, &str)> {
    let s = text.trim_start_matches(is_c_space);
    let (negative, body) = split_sign(s);
    let (magnitude, rest) =
        special_float(body).or_else(|| hex_float(body)).or_else(|| decimal_float(body))?;
    let value = if negative { -magnitude } else { magnitude };
    Some((value, rest))
}

/// Splits an optional leading `+` or `-`; true if negative.
fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// `inf`, `infinity` and `nan`, any case.
fn special_float(s: &str) -> Option<(f64, &str)> {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    if lower.starts_with("infinity") {
        Some((f64::INFINITY, &s[8..]))
    } else if lower.starts_with("inf") {
        Some((f64::INFINITY, &s[3..]))
    } else if lower.starts_with("nan") {
        Some((f64::NAN, &s[3..]))
    } else {
        None
    }
}

/// A hex float: `0x` hex digits, optional fraction, optional `p` exponent.
fn hex_float(s: &str) -> Option<(f64, &str)> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    let bytes = digits.as_bytes();
    let mut pos = 0;
    let mut value = 0.0f64;
    let mut seen = false;
    while let Some(d) = bytes.get(pos).and_then(|b| char::from(*b).to_digit(16)) {
        value = value * 16.0 + f64::from(d);
        pos += 1;
        seen = true;
    }
    if bytes.get(pos) == Some(&b'.') {
        let mut scale = 1.0 / 16.0;
        pos += 1;
        while let Some(d) = bytes.get(pos).and_then(|b| char::from(*b).to_digit(16)) {
            value += f64::from(d) * scale;
            scale /= 16.0;
            pos += 1;
            seen = true;
        }
    }
    if !seen {
        return None;
    }
    let (exp, used) = exponent(&digits[pos..], ['p', 'P']);
    out_of_range_check(value * 2f64.powi(exp), value != 0.0).map(|v| (v, &digits[pos + used..]))
}

/// A decimal float: digits, optional `.digits`, optional exponent; at least
/// one digit.
fn decimal_float(s: &str) -> Option<(f64, &str)> {
    let bytes = s.as_bytes();
    let int_len = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut pos = int_len;
    let mut frac_len = 0;
    if bytes.get(pos) == Some(&b'.') {
        frac_len = bytes[pos + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        pos += 1 + frac_len;
    }
    if int_len + frac_len == 0 {
        return None;
    }
    let (_, used) = exponent(&s[pos..], ['e', 'E']);
    let end = pos + used;
    let value: f64 = s[..end].parse().ok()?;
    let nonzero = s[..pos].bytes().any(|b| (b'1'..=b'9').contains(&b));
    out_of_range_check(value, nonzero).map(|v| (v, &s[end..]))
}

/// exponent -- an exponent marker, optional sign and at least one digit at
/// the start of `s`: its value and length, or (0, 0) if there is none.
fn exponent(s: &str, markers: [char; 2]) -> (i32, usize) {
    let Some(rest) = s.strip_prefix(markers) else { return (0, 0) };
    let (negative, digits) = split_sign(rest);
    let len = digits.bytes().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 {
        return (0, 0);
    }
    let magnitude: i32 = digits[..len].parse().unwrap_or(i32::MAX);
    let used = s.len() - digits.len() + len;
    (if negative { -magnitude } else { magnitude }, used)
}

/// C's ERANGE: an infinite result from finite input, or a zero or subnormal
/// result from non-zero input.
fn out_of_range_check(value: f64, nonzero_input: bool) -> Option<f64> {
    let underflow = nonzero_input && (value == 0.0 || value.is_subnormal());
    if value.is_infinite() || underflow {
        None
    } else {
        Some(value)
    }
}

/// format_g -- `printf("%g", x)` as PostgreSQL's own `snprintf` does it: six
/// significant digits, trailing zeros removed, exponent form when the
/// exponent is below -4 or at least 6; `Infinity` and `NaN` spelt out.
pub(crate) fn format_g(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Round to six significant digits first: the exponent is the rounded one.
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent digits");
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    } else {
        let decimals = usize::try_from(5 - exp).expect("exp below 6");
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// Removes trailing zeros after a decimal point, and the point if bare.
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests;
