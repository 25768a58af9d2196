//! `real` and `double precision`: input, output and checked arithmetic.
//!
//! Output follows PostgreSQL 12+ with the default `extra_float_digits = 1`:
//! the shortest decimal that reads back as the same binary value (Ryu's
//! algorithm in PostgreSQL; Rust's own formatter produces the same digits),
//! printed in fixed notation when the decimal exponent is in `-4 .. 15`
//! (`-4 .. 6` for `real`) and as `1.5e+20` otherwise — `%g`'s thresholds.
//!
//! Input accepts what C's `strtod` accepts for decimal text plus PostgreSQL's
//! spellings of the specials (`NaN`, `Infinity`, `inf`, with signs); values
//! that overflow, or underflow to zero, are errors. Arithmetic reports
//! `value out of range: overflow` when a finite computation produces an
//! infinity, and `... underflow` when non-zero operands produce zero.

use crate::error::{ErrorKind, Result, TypeError};

/// `value out of range: overflow` (22003).
pub fn overflow_error() -> TypeError {
    TypeError::out_of_range("value out of range: overflow")
}

/// `value out of range: underflow` (22003).
pub fn underflow_error() -> TypeError {
    TypeError::out_of_range("value out of range: underflow")
}

/// Parse `double precision` text.
pub fn parse_f64(input: &str) -> Result<f64> {
    let text =
        scan_float(input).ok_or_else(|| TypeError::invalid_syntax("double precision", input))?;
    let v = match text {
        FloatText::Special(v) => return Ok(v),
        FloatText::Number { text, nonzero } => {
            let v: f64 =
                text.parse().map_err(|_| TypeError::invalid_syntax("double precision", input))?;
            (v, nonzero)
        }
    };
    if v.0.is_infinite() || (v.0 == 0.0 && v.1) {
        return Err(TypeError::float_input_out_of_range(input, "double precision"));
    }
    Ok(v.0)
}

/// Parse `real` text.
pub fn parse_f32(input: &str) -> Result<f32> {
    let text = scan_float(input).ok_or_else(|| TypeError::invalid_syntax("real", input))?;
    let (v, nonzero) = match text {
        FloatText::Special(v) => return Ok(v as f32),
        FloatText::Number { text, nonzero } => {
            let v: f32 = text.parse().map_err(|_| TypeError::invalid_syntax("real", input))?;
            (v, nonzero)
        }
    };
    if v.is_infinite() || (v == 0.0 && nonzero) {
        return Err(TypeError::float_input_out_of_range(input, "real"));
    }
    Ok(v)
}

/// What float input text turned out to be.
enum FloatText<'a> {
    /// NaN or an infinity.
    Special(f64),
    /// A decimal literal (without surrounding space) and whether any of its
    /// mantissa digits is non-zero (to detect underflow to zero).
    Number { text: &'a str, nonzero: bool },
}

/// Validate float syntax: `[+-](digits[.digits]|.digits)[e[+-]digits]` or a
/// special spelling, with optional surrounding whitespace.
fn scan_float(input: &str) -> Option<FloatText<'_>> {
    let trimmed = crate::scan::trim_space(input);
    if let Some(v) = special_value(trimmed) {
        return Some(FloatText::Special(v));
    }
    let s = trimmed.as_bytes();
    let mut pos = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let mut digits = 0;
    let mut nonzero = false;
    let mut seen_point = false;
    while pos < s.len() {
        match s[pos] {
            c @ b'0'..=b'9' => {
                digits += 1;
                nonzero |= c != b'0';
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        pos += 1;
    }
    if digits == 0 {
        return None;
    }
    if matches!(s.get(pos), Some(b'e' | b'E')) {
        let mut p = pos + 1;
        p += usize::from(matches!(s.get(p), Some(b'+' | b'-')));
        let exp_start = p;
        while p < s.len() && s[p].is_ascii_digit() {
            p += 1;
        }
        if p > exp_start {
            pos = p;
        }
    }
    (pos == s.len()).then_some(FloatText::Number { text: trimmed, nonzero })
}

/// PostgreSQL's (and strtod's) spellings of NaN and the infinities.
fn special_value(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "nan" => Some(f64::NAN),
        "infinity" | "+infinity" | "inf" | "+inf" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// PostgreSQL's `float8out`: shortest exact digits, `%g`-style layout.
pub fn output_f64(v: f64) -> String {
    if let Some(s) = special_text(v) {
        return s;
    }
    layout(&format!("{v:e}"), 15)
}

/// PostgreSQL's `float4out`: shortest exact digits, `%g`-style layout.
pub fn output_f32(v: f32) -> String {
    if let Some(s) = special_text(f64::from(v)) {
        return s;
    }
    layout(&format!("{v:e}"), 6)
}

/// Text of NaN and the infinities.
fn special_text(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("NaN".into())
    } else if v.is_infinite() {
        Some(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        None
    }
}

/// Lay out Rust's shortest scientific form (`-1.2345e-7`) the way PostgreSQL
/// does: fixed notation for exponents in `-4 .. limit`, else `d.ddde±XX`.
fn layout(sci: &str, limit: i32) -> String {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::from(sign);
    if (-4..limit).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        } else if digits.len() as i32 <= exp + 1 {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (exp + 1 - digits.len() as i32) as usize));
        } else {
            out.push_str(&digits[..=exp as usize]);
            out.push('.');
            out.push_str(&digits[exp as usize + 1..]);
        }
        return out;
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push_str(&format!("e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()));
    out
}

/// Floating-point arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
}

/// `a op b` in double precision with PostgreSQL's overflow checks.
pub fn arith_f64(op: FloatOp, a: f64, b: f64) -> Result<f64> {
    let r = match op {
        FloatOp::Add => a + b,
        FloatOp::Sub => a - b,
        FloatOp::Mul => a * b,
        FloatOp::Div => {
            if b == 0.0 && !a.is_nan() {
                return Err(TypeError::division_by_zero());
            }
            a / b
        }
    };
    check_result(op, a, b, r)
}

/// `a op b` in single precision with PostgreSQL's overflow checks.
pub fn arith_f32(op: FloatOp, a: f32, b: f32) -> Result<f32> {
    let r = match op {
        FloatOp::Add => a + b,
        FloatOp::Sub => a - b,
        FloatOp::Mul => a * b,
        FloatOp::Div => {
            if b == 0.0 && !a.is_nan() {
                return Err(TypeError::division_by_zero());
            }
            a / b
        }
    };
    check_result(op, f64::from(a), f64::from(b), f64::from(r))?;
    Ok(r)
}

/// PostgreSQL's `float_overflow_error`/`float_underflow_error` conditions.
fn check_result(op: FloatOp, a: f64, b: f64, r: f64) -> Result<f64> {
    if r.is_infinite() && !a.is_infinite() && !b.is_infinite() {
        return Err(overflow_error());
    }
    let underflow = match op {
        FloatOp::Mul => r == 0.0 && a != 0.0 && b != 0.0,
        FloatOp::Div => r == 0.0 && a != 0.0 && !b.is_infinite(),
        FloatOp::Add | FloatOp::Sub => false,
    };
    if underflow {
        return Err(underflow_error());
    }
    Ok(r)
}

/// `float8::float4`, with overflow/underflow errors.
pub fn f64_to_f32(v: f64) -> Result<f32> {
    let r = v as f32;
    if r.is_infinite() && !v.is_infinite() {
        return Err(overflow_error());
    }
    if r == 0.0 && v != 0.0 {
        return Err(underflow_error());
    }
    Ok(r)
}

/// Round half to even (C's `rint`), as float-to-integer casts and `round()` do.
pub fn rint(v: f64) -> f64 {
    v.round_ties_even()
}

/// `sqrt(float8)`.
pub fn sqrt(v: f64) -> Result<f64> {
    if v < 0.0 {
        return Err(TypeError::new(
            ErrorKind::InvalidArgumentForPowerFunction,
            "cannot take square root of a negative number",
        ));
    }
    Ok(v.sqrt())
}

/// `power(float8, float8)` with PostgreSQL's (POSIX) special cases and errors.
pub fn power(x: f64, y: f64) -> Result<f64> {
    if x.is_nan() || y.is_nan() {
        return Ok(x.powf(y));
    }
    let error = |msg: &str| TypeError::new(ErrorKind::InvalidArgumentForPowerFunction, msg);
    if x == 0.0 && y < 0.0 {
        return Err(error("zero raised to a negative power is undefined"));
    }
    if x < 0.0 && y.floor() != y && y.is_finite() {
        return Err(error(
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    let r = x.powf(y);
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(overflow_error());
    }
    if r == 0.0 && x != 0.0 && x.is_finite() && y.is_finite() {
        return Err(underflow_error());
    }
    Ok(r)
}

/// A float rounded to the nearest integer (half to even) and checked against
/// an integer type's range; NaN is out of range, as in PostgreSQL.
pub fn to_int(v: f64, width: crate::int::IntWidth) -> Result<i64> {
    let r = rint(v);
    // The range test is done in floating point like PostgreSQL's
    // FLOAT8_FITS_IN_INT64: max is exclusive because 2^63 is not an int8.
    let lo = width.min_value() as f64;
    let hi = -(width.min_value() as f64);
    if r.is_nan() || r < lo || r >= hi {
        return Err(width.out_of_range());
    }
    Ok(r as i64)
}
