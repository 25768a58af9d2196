//! Text input and output of `numeric`, and coercion to a `numeric(p,s)` typmod.
//!
//! Input accepts what PostgreSQL 15's `numeric_in` accepts: surrounding
//! whitespace, a sign, digits with an optional point, an optional exponent, and
//! the special spellings `NaN`, `Infinity`, `inf` (case-insensitive, signs only
//! on the infinities). The display scale of the result is the number of digits
//! written after the point, less the exponent — so `1.50` keeps two decimals and
//! `1.5e3` has none. Output never uses exponent notation.

use super::digits::{self, Mag};
use super::{Numeric, NumericKind, MAX_DSCALE};
use crate::error::{Result, TypeError};
use crate::scan::is_space;
use crate::types::numeric_typmod_parts;

/// Exponents saturate here while parsing; anything this large overflows anyway.
const MAX_INPUT_EXPONENT: i64 = i32::MAX as i64 / 2;

/// Parse numeric text, then coerce it to `typmod` (-1 for none).
pub fn parse(input: &str, typmod: i32) -> Result<Numeric> {
    let bad = || TypeError::invalid_syntax("numeric", input);
    let bytes = input.as_bytes();
    let start = bytes.iter().position(|&c| !is_space(c)).unwrap_or(bytes.len());
    let (value, used) = match parse_special(&bytes[start..]) {
        Some(found) => found,
        None => parse_number(&bytes[start..]).ok_or_else(bad)?,
    };
    if !bytes[start + used..].iter().all(|&c| is_space(c)) {
        return Err(bad());
    }
    apply_typmod(value.checked()?, typmod)
}

/// The length of the longest prefix of `bytes` that is a finite numeric literal
/// (digits, point, exponent), or 0; lets other parsers (jsonb) reuse the rules.
pub fn parse_prefix_len(bytes: &[u8]) -> usize {
    parse_number(bytes).map_or(0, |(_, used)| used)
}

/// Recognise `NaN`, `Infinity`, `inf` with optional signs on the infinities.
fn parse_special(s: &[u8]) -> Option<(Numeric, usize)> {
    let starts = |p: &str| s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    let table: [(&str, NumericKind); 7] = [
        ("NaN", NumericKind::NaN),
        ("Infinity", NumericKind::PosInf),
        ("+Infinity", NumericKind::PosInf),
        ("-Infinity", NumericKind::NegInf),
        ("inf", NumericKind::PosInf),
        ("+inf", NumericKind::PosInf),
        ("-inf", NumericKind::NegInf),
    ];
    table.iter().find(|(p, _)| starts(p)).map(|&(p, kind)| (Numeric::special(kind), p.len()))
}

/// Parse `[+-]digits[.digits][e[+-]digits]`, returning the value and the
/// number of bytes consumed, or `None` if there is no number there.
fn parse_number(s: &[u8]) -> Option<(Numeric, usize)> {
    let mut pos = 0;
    let neg = crate::scan::sign(s, &mut pos);
    let int_start = pos;
    while pos < s.len() && s[pos].is_ascii_digit() {
        pos += 1;
    }
    let int_digits = &s[int_start..pos];
    let mut frac_digits: &[u8] = &[];
    if s.get(pos) == Some(&b'.') {
        let frac_start = pos + 1;
        pos = frac_start;
        while pos < s.len() && s[pos].is_ascii_digit() {
            pos += 1;
        }
        frac_digits = &s[frac_start..pos];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let (exponent, used) = parse_exponent(&s[pos..])?;
    pos += used;
    Some((build(neg, int_digits, frac_digits, exponent)?, pos))
}

/// Parse an optional `e[+-]digits`; `None` if it is malformed.
fn parse_exponent(s: &[u8]) -> Option<(i64, usize)> {
    if !matches!(s.first(), Some(b'e' | b'E')) {
        return Some((0, 0));
    }
    let mut pos = 1;
    let neg = crate::scan::sign(s, &mut pos);
    let start = pos;
    let mut value: i64 = 0;
    while pos < s.len() && s[pos].is_ascii_digit() {
        // Saturate: an absurd exponent is an overflow, reported by `checked`.
        value = (value * 10 + i64::from(s[pos] - b'0')).min(MAX_INPUT_EXPONENT);
        pos += 1;
    }
    if pos == start {
        return None;
    }
    Some((if neg { -value } else { value }, pos))
}

/// Assemble a numeric from its decimal digits and exponent.
fn build(neg: bool, int_digits: &[u8], frac_digits: &[u8], exponent: i64) -> Option<Numeric> {
    let dscale = (frac_digits.len() as i64 - exponent).max(0);
    // Decimal exponent of the last digit written.
    let low_exp = exponent - frac_digits.len() as i64;
    // Values whose weight is far outside what a numeric can store are rejected
    // later by `checked`; refuse absurd ones here before allocating.
    let total = int_digits.len() as i64 + frac_digits.len() as i64;
    if low_exp + total > 600_000 || low_exp < -600_000 || dscale > i64::from(MAX_DSCALE) * 4 {
        return Some(Numeric { weight: i32::MAX, ..Numeric::from_i64(1) });
    }
    // Align to a multiple of four decimal places so base-10000 digits line up.
    let pad = low_exp.rem_euclid(4);
    let exp = ((low_exp - pad) / 4) as i32;
    let mut dec: Vec<u8> = int_digits.iter().chain(frac_digits).map(|c| c - b'0').collect();
    dec.extend(std::iter::repeat_n(0, pad as usize));
    Some(Numeric::from_mag(neg, decimal_to_mag(&dec), exp, dscale as i32))
}

/// Convert decimal digits (most significant first) to a base-10000 magnitude.
fn decimal_to_mag(dec: &[u8]) -> Mag {
    let mut mag = Vec::with_capacity(dec.len() / 4 + 1);
    let mut end = dec.len();
    while end > 0 {
        let start = end.saturating_sub(4);
        mag.push(dec[start..end].iter().fold(0u32, |acc, &d| acc * 10 + u32::from(d)));
        end = start;
    }
    digits::trim(mag)
}

/// PostgreSQL's `numeric_out`: plain decimal notation with `dscale` decimals.
pub fn output(n: &Numeric) -> String {
    match n.kind {
        NumericKind::NaN => return "NaN".into(),
        NumericKind::PosInf => return "Infinity".into(),
        NumericKind::NegInf => return "-Infinity".into(),
        NumericKind::Finite => {}
    }
    let mut out = String::new();
    if n.neg {
        out.push('-');
    }
    let digit = |w: i32| -> u16 {
        let idx = n.weight - w;
        if idx >= 0 && (idx as usize) < n.digits.len() {
            n.digits[idx as usize]
        } else {
            0
        }
    };
    if n.weight < 0 || n.digits.is_empty() {
        out.push('0');
    } else {
        out.push_str(&digit(n.weight).to_string());
        for w in (0..n.weight).rev() {
            out.push_str(&format!("{:04}", digit(w)));
        }
    }
    if n.dscale > 0 {
        out.push('.');
        let mut frac = String::with_capacity(n.dscale as usize + 4);
        let mut w = -1;
        while (frac.len() as i32) < n.dscale {
            frac.push_str(&format!("{:04}", digit(w)));
            w -= 1;
        }
        frac.truncate(n.dscale as usize);
        out.push_str(&frac);
    }
    out
}

/// Coerce a value to `numeric(p,s)`: round to `s` decimals, then fail with
/// PostgreSQL's `numeric field overflow` if it needs more than `p - s` integer
/// digits. A typmod below 4 (including -1) means no constraint.
pub fn apply_typmod(n: Numeric, typmod: i32) -> Result<Numeric> {
    if typmod < 4 {
        return Ok(n);
    }
    let (precision, scale) = numeric_typmod_parts(typmod);
    let overflow = || TypeError::out_of_range("numeric field overflow");
    match n.kind {
        NumericKind::NaN => return Ok(n),
        NumericKind::PosInf | NumericKind::NegInf => {
            return Err(overflow().with_detail(format!(
                "A field with precision {precision}, scale {scale} cannot hold an infinite value."
            )))
        }
        NumericKind::Finite => {}
    }
    let rounded = n.round(scale);
    let maxdigits = precision - scale;
    if integer_digits(&rounded) > maxdigits {
        let limit = if maxdigits != 0 { format!("10^{maxdigits}") } else { "1".to_string() };
        return Err(overflow().with_detail(format!(
            "A field with precision {precision}, scale {scale} must round to an absolute value less than {limit}."
        )));
    }
    Ok(rounded)
}

/// Number of decimal digits before the point; negative for values below 0.1
/// (leading fractional zeros count against it), as PostgreSQL counts them.
fn integer_digits(n: &Numeric) -> i32 {
    if n.digits.is_empty() {
        return i32::MIN;
    }
    let lead = n.digits[0];
    let lead_len = if lead >= 1000 {
        4
    } else if lead >= 100 {
        3
    } else if lead >= 10 {
        2
    } else {
        1
    };
    n.weight * 4 + lead_len
}
